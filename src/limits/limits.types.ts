/** The three limits Parley enforces on invokes (docs/security.md, "Limits"); null = unlimited. */
export interface LimitValues {
  requestsPerMinute: number | null;
  concurrentInvokes: number | null;
  tokensPerDay: number | null;
}

export const NO_LIMITS: LimitValues = { requestsPerMinute: null, concurrentInvokes: null, tokensPerDay: null };

/** What applies to one call: its key's limits and its project's. */
export interface EffectiveLimits {
  key: LimitValues;
  project: LimitValues;
}

export const PROJECT_SUBJECT = 'project';
export const KEY_DEFAULT_SUBJECT = 'keys';

export function hasAnyLimit(values: LimitValues): boolean {
  return values.requestsPerMinute !== null || values.concurrentInvokes !== null || values.tokensPerDay !== null;
}
