import type { Response } from 'express';

import type { PreparedInvocation } from './invocation.types';

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

/** The target that served the call (DESIGN's contract; on a stream, the one that sent its first content event). */
export const PROVIDER_HEADER = 'x-parley-provider';
export const MODEL_HEADER = 'x-parley-model';
/** How many targets were tried (docs/routing.md): 1 without routing. */
export const ATTEMPTS_HEADER = 'x-parley-attempts';

/** The three headers naming the target that served (or failed last) and how many were tried. */
export function servedTargetHeaders(prepared: PreparedInvocation): Record<string, string> {
  const route = prepared.route;
  if (!route) {
    return { [PROVIDER_HEADER]: prepared.input.target.provider.name, [MODEL_HEADER]: prepared.request.model, [ATTEMPTS_HEADER]: '1' };
  }
  const current = route.current;
  return { [PROVIDER_HEADER]: current.provider.name, [MODEL_HEADER]: current.request.model, [ATTEMPTS_HEADER]: String(route.attempts) };
}

/** A signal that fires when the client goes away before the answer was written: it aborts the upstream call. */
export function abortOnClose(res: Response): AbortSignal {
  const abort = new AbortController();
  res.on('close', () => !res.writableFinished && abort.abort());
  return abort.signal;
}
