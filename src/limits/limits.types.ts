/**
 * The limits Parley enforces on invokes (docs/security.md, "Limits") and the budgets in USD
 * (docs/usage.md, "Budgets"); null = unlimited.
 */
export interface LimitValues {
  requestsPerMinute: number | null;
  concurrentInvokes: number | null;
  tokensPerDay: number | null;
  /** USD per UTC day. */
  budgetUsdPerDay: number | null;
  /** USD per UTC calendar month. */
  budgetUsdPerMonth: number | null;
}

export const NO_LIMITS: LimitValues = {
  requestsPerMinute: null,
  concurrentInvokes: null,
  tokensPerDay: null,
  budgetUsdPerDay: null,
  budgetUsdPerMonth: null,
};

/** Every field of LimitValues, in the order the API shows them. */
export const LIMIT_FIELDS = ['requestsPerMinute', 'concurrentInvokes', 'tokensPerDay', 'budgetUsdPerDay', 'budgetUsdPerMonth'] as const;

/** What applies to one call: its key's limits and its project's. */
export interface EffectiveLimits {
  key: LimitValues;
  project: LimitValues;
}

/** The largest budget: its nano-USD stay within a JavaScript number's exact integers (2^53). */
export const MAX_BUDGET_USD = 1_000_000;

export const PROJECT_SUBJECT = 'project';
export const KEY_DEFAULT_SUBJECT = 'keys';

export function hasAnyLimit(values: LimitValues): boolean {
  return LIMIT_FIELDS.some((field) => values[field] !== null);
}
