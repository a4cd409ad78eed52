/** One attempt as `request_logs.attempts` stores it and GET /v2/logs/{id} shows it (docs/routing.md, "Every attempt recorded"). */
export interface AttemptRecord {
  provider: string;
  model: string;
  /** 200, or the status Parley would have answered with had this attempt been the only one. */
  status: number;
  /** From the attempt's start to its end (for a served stream: to the stream's end). */
  latencyMs: number;
  /** Streams: from the attempt's start to its first content event. */
  ttftMs?: number;
  /** Prompt tokens (all kinds) and completion tokens (reasoning included) the provider reported for this attempt. */
  inputTokens?: number;
  outputTokens?: number;
  /** USD as a decimal string, like the log's costUsd; absent when no usage was reported or no price is known. */
  costUsd?: string;
  /** The failure, as the log's `error` records it (doNotRecord: without the upstream's own text). */
  error?: string;
  /** Why the failure moved the call on (or would have, on the last target): a routing `fallbackOn` reason; absent for the caller's own errors. */
  reason?: string;
}
