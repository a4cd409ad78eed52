/**
 * A route answers with one status (`@HttpCode`); the few that answer a success of another kind
 * (a deploy to a protected environment: 202, a request waiting for approval, docs/security.md
 * "Approvals") mark their body with it. ExpressHttpAdapter sends the marked status, and an
 * Idempotency-Key stores and replays it. The mark is a symbol: it is never serialised.
 */
const ANSWER_STATUS = Symbol('parley:answer-status');

export function answeredWith<T>(status: number, body: T): T {
  if (typeof body === 'object' && body !== null) Object.defineProperty(body, ANSWER_STATUS, { value: status, enumerable: false });
  return body;
}

/** The status a body was marked with, or undefined. */
export function answerStatusOf(body: unknown): number | undefined {
  return typeof body === 'object' && body !== null ? (body as { [ANSWER_STATUS]?: number })[ANSWER_STATUS] : undefined;
}
