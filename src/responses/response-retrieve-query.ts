import { openaiError } from '../common/errors';

/** GET /v1/responses/{id}'s query: `stream` (`true`/`false`) and `starting_after` (an integer ≥ -1, default -1: from the start). */
export function parseRetrieveQuery(query: Record<string, unknown>): { stream: boolean; startingAfter: number } {
  const { stream, starting_after: after } = query;
  if (stream !== undefined && stream !== 'true' && stream !== 'false')
    throw openaiError(400, "'stream' must be true or false.", { param: 'stream', code: 'invalid_value' });
  let startingAfter = -1;
  if (after !== undefined) {
    if (typeof after !== 'string' || !/^-?\d{1,9}$/.test(after) || Number(after) < -1) {
      throw openaiError(400, "'starting_after' must be an integer sequence number (-1 or more).", {
        param: 'starting_after',
        code: 'invalid_value',
      });
    }
    startingAfter = Number(after);
  }
  return { stream: stream === 'true', startingAfter };
}
