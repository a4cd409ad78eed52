import { api, type Schemas, unwrap } from '../../api/client';

/** The fields of a stored message that Create Thread Message takes (it refuses any other key). */
const MESSAGE_FIELDS = ['role', 'content', 'name', 'tool_calls', 'tool_choice', 'tool_call_id'] as const;

/**
 * A copy of a thread for the playground to run on, so an unsaved draft's turns never land in the
 * real (customer's) thread: a new thread (`POST /v2/threads`, metadata `forked_from` and
 * `source=console-playground`), then every message of the original, oldest first, added with
 * `POST /v2/threads/<id>/messages` (no model call). Resolves with the new thread's id.
 */
export async function forkThread(threadId: string): Promise<string> {
  const fork = await unwrap(api.POST('/v2/threads', { body: { metadata: { forked_from: threadId, source: 'console-playground' } } }));
  let after: string | undefined;
  do {
    const page = await unwrap(
      api.GET('/v2/threads/{threadId}/messages', {
        params: { path: { threadId }, query: { limit: 100, order: 'asc', ...(after ? { after } : {}) } },
      }),
    );
    for (const row of page.data) {
      for (const stored of row.content) {
        const message = Object.fromEntries(MESSAGE_FIELDS.filter((field) => field in stored).map((field) => [field, stored[field]]));
        await unwrap(
          api.POST('/v2/threads/{threadId}/messages', {
            params: { path: { threadId: fork.id } },
            body: { message: message as Schemas['CreateMessageDto']['message'] },
          }),
        );
      }
    }
    after = page.has_more && page.last_id ? page.last_id : undefined;
  } while (after);
  return fork.id;
}
