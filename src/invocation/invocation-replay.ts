import { ApiException, serviceError } from '../common/errors';
import { IDEMPOTENCY_MESSAGES, type StoredOutcome } from '../idempotency/idempotency.types';
import type { ChatCompletion, ChatCompletionChunk } from '../providers';
import { InvocationResult, PreparedInvocation } from './invocation.types';

const REPLAYED = { 'Idempotent-Replayed': 'true' };

/** The invoke surfaces' answers to an Idempotency-Key they cannot run (docs/security.md). */
export const INVOKE_IDEMPOTENCY_ERRORS = {
  inFlight: () => serviceError(409, 'Conflict', IDEMPOTENCY_MESSAGES.inFlight),
  mismatch: () => serviceError(422, 'Unprocessable Entity', IDEMPOTENCY_MESSAGES.mismatch),
};

/** The chunks a stream of this completion would have carried: role and content, tool calls, finish. */
export function chunksOf(completion: ChatCompletion): ChatCompletionChunk[] {
  const head = { id: completion.id, object: 'chat.completion.chunk' as const, created: completion.created, model: completion.model };
  return completion.choices.flatMap((choice) => {
    const calls = (choice.message.tool_calls ?? []).filter((call) => call.type === 'function');
    const chunks: ChatCompletionChunk[] = [
      {
        ...head,
        choices: [
          {
            index: choice.index,
            delta: { role: 'assistant', content: choice.message.content ?? (calls.length > 0 ? null : '') },
            finish_reason: null,
          },
        ],
      },
    ];
    if (calls.length > 0) {
      const deltas = calls.map((call, index) => ({
        index,
        id: call.id,
        type: 'function' as const,
        function: { name: call.function.name, arguments: call.function.arguments },
      }));
      chunks.push({ ...head, choices: [{ index: choice.index, delta: { tool_calls: deltas }, finish_reason: null }] });
    }
    chunks.push({ ...head, choices: [{ index: choice.index, delta: {}, finish_reason: choice.finish_reason }] });
    return chunks;
  });
}

async function* iterate(chunks: ChatCompletionChunk[]): AsyncGenerator<ChatCompletionChunk> {
  yield* chunks;
}

/**
 * A stored outcome answered again, through the same transport as the first time: a completion as
 * JSON, or as a stream when this request streams; a stored refusal as the same error.
 */
export function replayOutcome(outcome: StoredOutcome, prepared: PreparedInvocation): InvocationResult {
  if (outcome.kind === 'error') throw new ApiException(outcome.status, outcome.body, { ...outcome.headers, ...REPLAYED });
  if (outcome.kind !== 'invocation') throw INVOKE_IDEMPOTENCY_ERRORS.mismatch();
  const { completion, threadId } = outcome;
  const replayed = outcome.objectId ? { objectId: outcome.objectId } : {};
  if (!prepared.input.stream) return { type: 'completion', threadId, completion, headers: REPLAYED, replayed };
  return {
    type: 'stream',
    threadId,
    headers: REPLAYED,
    replayed,
    chunks: iterate(chunksOf(completion)),
    finish: () => Promise.resolve(completion),
  };
}
