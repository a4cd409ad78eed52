import type { WireLogFields } from '../common/http/wire-request';

/**
 * What an experiment's calls log as their request (they come from no HTTP request): a URL that
 * names the run, so `GET /v2/logs` shows where a call came from.
 */
export const evalWireFields = (runId: string): WireLogFields => ({ url: `/v2/evals/runs/${runId}`, ip: undefined, requestId: undefined });

/** The environment an experiment's calls (its items' and its judges') are logged under: usage shows a run's spend as its own line. */
export const runEnvironment = (runId: string): string => `eval-${runId}`;
