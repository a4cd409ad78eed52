import { isDeepStrictEqual } from 'node:util';

/**
 * Where a logged provider request's thread history lives (docs/decisions.md, "Linear request
 * log storage"): instead of a second copy of the history, an assistant's log stores the request
 * without it and this reference; the history is read back from the thread to show the request.
 */
export interface ThreadRange {
  threadId: string;
  /** Sequence numbers of the turns sent: fromSeq..toSeq, except `skip` (turns already deleted then). */
  fromSeq: number;
  toSeq: number;
  skip: number[];
  /** Index in the provider request's `messages` where the history's messages go back. */
  at: number;
  /** How many messages the history had (its turns flattened). */
  count: number;
}

/** The history an assistant call sent: the live turns' sequence numbers and their messages, flattened. */
export interface SentHistory {
  threadId: string;
  seqs: number[];
  messages: unknown[];
}

type WireRequest = Record<string, unknown> & { messages?: unknown[] };

/**
 * The provider request without the history, and the range to restore it from. Only when the
 * adapter sent the history's messages unchanged (a contiguous run of its `messages`, deep-equal):
 * otherwise (a provider format that rewrites messages) the request is kept whole.
 */
export function elideHistory(request: WireRequest, history: SentHistory): { request: WireRequest; range: ThreadRange | null } {
  const messages = request.messages;
  const count = history.messages.length;
  if (!Array.isArray(messages) || count === 0 || history.seqs.length === 0) return { request, range: null };
  const at = findRun(messages, history.messages);
  if (at < 0) return { request, range: null };
  const fromSeq = history.seqs[0];
  const toSeq = history.seqs[history.seqs.length - 1];
  const kept = new Set(history.seqs);
  const skip: number[] = [];
  for (let seq = fromSeq; seq <= toSeq; seq++) if (!kept.has(seq)) skip.push(seq);
  return {
    request: { ...request, messages: [...messages.slice(0, at), ...messages.slice(at + count)] },
    range: { threadId: history.threadId, fromSeq, toSeq, skip, at, count },
  };
}

/** The request as it was sent: the history's messages (read back from the thread) put back in place. */
export function restoreHistory(stored: WireRequest, range: ThreadRange, history: unknown[]): WireRequest {
  const messages = Array.isArray(stored.messages) ? stored.messages : [];
  return { ...stored, messages: [...messages.slice(0, range.at), ...history, ...messages.slice(range.at)] };
}

function findRun(haystack: unknown[], run: unknown[]): number {
  outer: for (let i = 0; i + run.length <= haystack.length; i++) {
    for (let j = 0; j < run.length; j++) if (!isDeepStrictEqual(haystack[i + j], run[j])) continue outer;
    return i;
  }
  return -1;
}
