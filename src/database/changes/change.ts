/** The one notification channel every instance LISTENs on. */
export const CHANGE_CHANNEL = 'parley_changes';

/**
 * What a committed write may have made stale in another instance's caches:
 * - `project`: its registry (deployments, versions, environments, provider credentials);
 * - `api-key`: one key (revoked).
 */
export type Change = { kind: 'project'; projectId: string } | { kind: 'api-key'; keyId: string };

/** Compact text payloads (NOTIFY payloads must stay under 8000 bytes): `p:<uuid>`, `k:<uuid>`. */
export function encodeChange(change: Change): string {
  return change.kind === 'project' ? `p:${change.projectId}` : `k:${change.keyId}`;
}

export function decodeChange(payload: string): Change | null {
  const id = payload.slice(2);
  if (payload.startsWith('p:') && id) return { kind: 'project', projectId: id };
  if (payload.startsWith('k:') && id) return { kind: 'api-key', keyId: id };
  return null;
}
