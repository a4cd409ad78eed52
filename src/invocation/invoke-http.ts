import type { Response } from 'express';

/** The thread an assistant call continues or created (DESIGN.md §4.6). */
export const THREAD_ID_HEADER = 'x-parley-thread-id';
/** The same value under the name the langtail SDK reads (docs/decisions.md). */
export const LANGTAIL_THREAD_ID_HEADER = 'x-langtail-thread-id';

export function setThreadIdHeaders(res: Response, threadId: string | null): void {
  if (!threadId || res.headersSent) return;
  res.setHeader(THREAD_ID_HEADER, threadId);
  res.setHeader(LANGTAIL_THREAD_ID_HEADER, threadId);
}

/** The request log of the call that produced this answer (GET /v2/logs/{id}). */
export const LOG_ID_HEADER = 'x-parley-log-id';

/** The version of the deployed prompt or assistant that served the call (DESIGN's contract; a split's arm). */
export const VERSION_HEADER = 'x-parley-version';

/** A signal that fires when the client goes away before the answer was written: it aborts the upstream call. */
export function abortOnClose(res: Response): AbortSignal {
  const abort = new AbortController();
  res.on('close', () => !res.writableFinished && abort.abort());
  return abort.signal;
}
