import { ThreadMessageEntity } from './thread-message.entity';

/* What a history read gives and what an instance holds of it (messages.repository.ts, history-cache.ts). */

/** One turn of a thread's history, as the model is sent it. */
export interface HistoryTurn {
  seq: number;
  content: ThreadMessageEntity['content'];
  /** Some of the turn's items were deleted one by one (/v1 conversations): what is sent is not its whole content. */
  partial: boolean;
}

/** What an instance holds of a thread's history: its live turns through `lastSeq`, read at `version`. */
export interface KnownHistory {
  lastSeq: number;
  version: number;
}

/**
 * The memory a turn's parsed content takes, from its size as stored (pg_column_size): about its
 * stored size for long texts, plus a turn's objects (measured: 233 bytes for a turn stored in 100).
 */
export const turnBytes = (storedSize: number) => storedSize + 160;
