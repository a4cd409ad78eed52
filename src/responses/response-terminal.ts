import type { ChatCompletion, ReasoningFields } from '../providers';
import type { ResponseEvent } from './response-events';

/** This turn's reply as chat messages (what `previous_response_id` chains and conversations keep), its reasoning too (providers/reasoning.ts). */
export const replyMessages = (completion: ChatCompletion): Record<string, unknown>[] => {
  const message = completion.choices[0]?.message as (ChatCompletion.Choice['message'] & ReasoningFields) | undefined;
  if (!message) return [];
  return [
    {
      role: 'assistant',
      content: message.content ?? null,
      ...(message.tool_calls?.length ? { tool_calls: message.tool_calls } : {}),
      ...(message.reasoning_content ? { reasoning_content: message.reasoning_content } : {}),
      ...(message.reasoning_signature ? { reasoning_signature: message.reasoning_signature } : {}),
    },
  ];
};

/** The error a response taken over after its instance stopped ends with (docs/openai-conversations.md, "Takeover"). */
export const TAKEOVER_ERROR = {
  code: 'server_error',
  message:
    'The Parley instance running this response stopped before it finished. It was not run again because the provider may already have been called; create the response again.',
};

/** The error a non-background stream ends with when its client went away (the upstream call is aborted). */
export const DISCONNECTED_ERROR = {
  code: 'server_error',
  message: 'The client disconnected before this (non-background) response finished; the upstream call was aborted.',
};

/**
 * The final events of a response ended outside its normal course (numbered when stored):
 * `response.failed` and an `error` event, or `response.cancelled`.
 */
export function endEvents(
  body: Record<string, unknown>,
  end: { status: 'failed'; error: { code: string; message: string } } | { status: 'cancelled' },
): { events: ResponseEvent[]; body: Record<string, unknown> } {
  if (end.status === 'cancelled') {
    const response = { ...body, status: 'cancelled' };
    return { body: response, events: [{ type: 'response.cancelled', sequence_number: 0, response }] };
  }
  const response = { ...body, status: 'failed', error: end.error };
  return {
    body: response,
    events: [
      { type: 'response.failed', sequence_number: 0, response },
      // As ResponseEventTranslator.failureEvents: the spec's `error` object and the SDK's flat fields.
      {
        type: 'error',
        sequence_number: 0,
        code: end.error.code,
        message: end.error.message,
        param: null,
        error: { type: 'server_error', ...end.error, param: null },
      },
    ],
  };
}
