import type { ThreadRange } from './thread-range';

/**
 * What a request log needs from its thread, provided by the messages module (which owns
 * thread_messages; this module cannot depend on it, as it depends on this one).
 */
export abstract class ThreadMessagesSource {
  /** The messages of the range's turns, flattened in sequence order (deleted-since turns included). */
  abstract messagesInRange(projectId: string, range: ThreadRange): Promise<unknown[]>;
  /** The ids of the thread messages a call appended, in sequence order. */
  abstract messageIdsOfLog(projectId: string, threadId: string, requestLogId: string): Promise<string[]>;
}
