/** The one notification channel every instance LISTENs on. */
export const CHANGE_CHANNEL = 'parley_changes';

/**
 * What a committed write may have made stale in another instance's caches, or what another
 * instance should act on:
 * - `project`: its registry (deployments, versions, environments, provider credentials);
 * - `api-key`: one key (revoked);
 * - `response-events`: a response stored more stream events (resumed streams follow them);
 * - `response-cancel`: a response was cancelled (the instance running it aborts its upstream call);
 * - `response-jobs`: a job was queued on the job queue, a background response or an experiment run (idle instances claim it);
 * - `job-cancel`: an experiment run was cancelled (the instance running it aborts its calls);
 * - `limits`: a project's limit settings (its own, its keys' default, each key's);
 * - `target-health`: a routing target started cooling down until `until` (epoch ms) after its
 *   `trips`-th trip in a row, or recovered from the cooldown that ended at `until` (`trips` 0)
 *   (src/routing/shared-target-health.ts, docs/routing.md "Health").
 */
export type Change =
  | { kind: 'project'; projectId: string }
  | { kind: 'api-key'; keyId: string }
  | { kind: 'response-events'; responseId: string }
  | { kind: 'response-cancel'; responseId: string }
  | { kind: 'response-jobs' }
  | { kind: 'job-cancel'; jobId: string }
  | { kind: 'limits'; projectId: string }
  | { kind: 'target-health'; projectId: string; provider: string; model: string; until: number; trips: number };

const PREFIXES = { project: 'p', 'api-key': 'k', 'response-events': 'e', 'response-cancel': 'x', 'response-jobs': 'j' } as const;

/**
 * Compact text payloads (NOTIFY payloads must stay under 8000 bytes): `p:<uuid>`, `k:<uuid>`, `e:<uuid>`,
 * `x:<uuid>`, `j:`, `l:<uuid>`, `c:<uuid>`, and `h:[project, provider, model, until, trips]` (JSON; a
 * provider name and a model name are bounded by the routing schema).
 */
export function encodeChange(change: Change): string {
  switch (change.kind) {
    case 'project':
      return `p:${change.projectId}`;
    case 'api-key':
      return `k:${change.keyId}`;
    case 'response-events':
    case 'response-cancel':
      return `${PREFIXES[change.kind]}:${change.responseId}`;
    case 'response-jobs':
      return 'j:';
    case 'limits':
      return `l:${change.projectId}`;
    case 'job-cancel':
      return `c:${change.jobId}`;
    case 'target-health':
      return `h:${JSON.stringify([change.projectId, change.provider, change.model, change.until, change.trips])}`;
  }
}

export function decodeChange(payload: string): Change | null {
  const id = payload.slice(2);
  if (payload === 'j:') return { kind: 'response-jobs' };
  if (!id || payload[1] !== ':') return null;
  switch (payload[0]) {
    case 'p':
      return { kind: 'project', projectId: id };
    case 'k':
      return { kind: 'api-key', keyId: id };
    case 'e':
      return { kind: 'response-events', responseId: id };
    case 'x':
      return { kind: 'response-cancel', responseId: id };
    case 'l':
      return { kind: 'limits', projectId: id };
    case 'c':
      return { kind: 'job-cancel', jobId: id };
    case 'h':
      return targetHealthOf(id);
    default:
      return null;
  }
}

function targetHealthOf(json: string): Change | null {
  let fields: unknown;
  try {
    fields = JSON.parse(json);
  } catch {
    return null;
  }
  if (!Array.isArray(fields) || fields.length !== 5) return null;
  const [projectId, provider, model, until, trips] = fields as unknown[];
  if (typeof projectId !== 'string' || typeof provider !== 'string' || typeof model !== 'string') return null;
  if (!Number.isFinite(until) || !Number.isInteger(trips) || (trips as number) < 0) return null;
  return { kind: 'target-health', projectId, provider, model, until: until as number, trips: trips as number };
}
