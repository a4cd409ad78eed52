import { OpenAIFieldsException } from '../common/errors';
import { formatDecimal, parseDecimal } from '../usage/pricing/decimal';
import { ColdKeyProbes } from './cold-key-probes';
import { CostEstimates } from './cost-estimates';
import { LimitsRepository } from './limits.repository';
import { LimitValues } from './limits.types';
import { Period, SharedCounters, windowOf } from './shared-counters';

/** Budgets are counted in nano-USD: whole numbers in limit_counters (bigint), exact to 10^-9 USD. */
const NANO_DIGITS = 9;

/** A cost or budget (decimal text or number, USD) in nano-USD; a cost rounds up, a budget down. */
export function nanoUsd(usd: string | number, round: 'up' | 'down'): number {
  const { units, scale } = parseDecimal(typeof usd === 'number' ? String(usd) : usd);
  if (scale <= NANO_DIGITS) return Number(units * 10n ** BigInt(NANO_DIGITS - scale));
  const divisor = 10n ** BigInt(scale - NANO_DIGITS);
  const whole = units / divisor;
  return Number(round === 'up' && whole * divisor < units ? whole + 1n : whole);
}

/** Nano-USD as exact decimal text ("0.0123"). */
export function usdText(nano: number): string {
  return formatDecimal(BigInt(Math.round(nano)), NANO_DIGITS);
}

interface BudgetPeriod {
  name: 'day' | 'month';
  period: Period;
  field: 'budgetUsdPerDay' | 'budgetUsdPerMonth';
  /** The suffix of its counters' scopes: `key:<id>:usd-day`, `project:usd-month`. */
  suffix: string;
  header: string;
  /** "per day" in a refusal's message. */
  per: string;
}

/** The response headers with what is left (docs/usage.md, "Budgets"). */
export const BUDGET_HEADERS = { day: 'x-parley-budget-remaining-usd-day', month: 'x-parley-budget-remaining-usd-month' } as const;

const PERIODS: BudgetPeriod[] = [
  { name: 'day', period: 86_400, field: 'budgetUsdPerDay', suffix: 'usd-day', header: BUDGET_HEADERS.day, per: 'per day' },
  { name: 'month', period: 'month', field: 'budgetUsdPerMonth', suffix: 'usd-month', header: BUDGET_HEADERS.month, per: 'per month' },
];

/** A scope of limits a call must fit: its key's (`key:<id>`) or its project's (`project`). */
export interface BudgetSubject {
  scope: string;
  values: LimitValues;
  /** "this API key", in a refusal's message. */
  who: string;
}

/** The reservations of an admitted call: give them back when it has ended (its real cost is charged apart). */
export interface BudgetHold {
  headers: Record<string, string>;
  release(): void;
}

/** One budget's state, for the admin API. */
export interface BudgetPeriodState {
  limitNano: number | null;
  spentNano: number;
  resetsAt: Date;
}

const NO_HOLD: BudgetHold = { headers: {}, release: () => undefined };

function exhausted(message: string, resetSeconds: number, header: string): OpenAIFieldsException {
  return new OpenAIFieldsException(
    429,
    { error: 'Too Many Requests', message },
    // Waiting seconds does not help: the official SDKs honour x-should-retry and do not retry.
    { 'Retry-After': String(Math.max(1, Math.ceil(resetSeconds))), 'x-should-retry': 'false', [header]: '0' },
    { type: 'insufficient_quota', code: 'insufficient_quota' },
  );
}

/**
 * Budgets in USD per UTC day and calendar month, per key and per project (docs/usage.md,
 * "Budgets"), on the limits' shared counters. Before a call, each budget that applies reserves the
 * cost such a call is expected to have (CostEstimates) if the budget is not yet spent; after it,
 * the call's real cost (the one its log stores) is charged and the reservation given back. So the
 * calls running when a budget runs out are already counted, and it is passed by at most about one
 * call's cost plus what the other instances admitted and had not yet shared (under a tenth).
 */
export class Budgets {
  private readonly estimates = new CostEstimates();
  private readonly probes: ColdKeyProbes;

  constructor(
    private readonly counters: SharedCounters,
    private readonly repo: LimitsRepository,
  ) {
    this.probes = new ColdKeyProbes(this.estimates, counters, repo);
  }

  /** Reserves against every budget that applies, or throws the 429 (OpenAI's insufficient_quota under /v1). */
  async reserve(
    projectId: string,
    keyId: string,
    subjects: BudgetSubject[],
    nowMs = Date.now(),
    signal?: AbortSignal,
  ): Promise<BudgetHold> {
    if (!subjects.some((s) => s.values.budgetUsdPerDay !== null || s.values.budgetUsdPerMonth !== null)) return NO_HOLD;
    // Known keys (every call but a cold key's first ones) skip the probe without a turn of the event loop.
    const endProbe = this.estimates.knows(projectId, keyId) ? undefined : await this.probes.turn(projectId, keyId, signal);
    const amount = this.estimates.of(projectId, keyId);
    const taken: Array<{ scope: string; period: Period; windowStart: number }> = [];
    const giveBack = () => {
      for (const t of taken) this.counters.giveBack(projectId, t.scope, t.period, t.windowStart, amount);
      taken.length = 0;
      endProbe?.();
    };
    const headers: Record<string, string> = {};
    try {
      await this.reserveEach(projectId, subjects, amount, nowMs, taken, headers);
    } catch (err) {
      giveBack();
      throw err;
    }
    let released = false;
    return {
      headers,
      release: () => {
        if (released) return;
        released = true;
        giveBack();
      },
    };
  }

  /** Each budget that applies, period by period: `taken` collects what was reserved, `headers` what is left. */
  private async reserveEach(
    projectId: string,
    subjects: BudgetSubject[],
    amount: number,
    nowMs: number,
    taken: Array<{ scope: string; period: Period; windowStart: number }>,
    headers: Record<string, string>,
  ): Promise<void> {
    for (const period of PERIODS) {
      let remaining = Infinity;
      for (const { scope, values, who } of subjects) {
        const budget = values[period.field];
        if (budget === null) continue;
        const limit = nanoUsd(budget, 'down');
        const counter = `${scope}:${period.suffix}`;
        const result = await this.counters.reserve(projectId, counter, period.period, limit, amount, nowMs);
        if (!result.ok) {
          throw exhausted(`Budget exhausted: ${budget} USD ${period.per} for ${who}`, result.resetSeconds, period.header);
        }
        taken.push({ scope: counter, period: period.period, windowStart: result.windowStart });
        remaining = Math.min(remaining, Math.max(0, limit - result.used));
      }
      if (remaining !== Infinity) headers[period.header] = usdText(remaining);
    }
  }

  /**
   * Charges a call's cost (its log's cost_usd) to its key and project, budgets or not; a call with
   * no cost (null) is not charged. `answered`: the provider answered it, so a null cost means an
   * unpriced model, expected to cost nothing; a refused or failed call teaches the estimate nothing.
   */
  charge(projectId: string, keyId: string, costUsd: string | null, answered = true, nowMs = Date.now()): void {
    const nano = costUsd === null ? 0 : nanoUsd(costUsd, 'up');
    this.addCharge(projectId, keyId, nano, nowMs);
    if (costUsd !== null || answered) {
      this.estimates.observe(projectId, keyId, nano);
      // Only a measured cost ends a probe: a refused call's log must not let a waiting call go unreserved.
      this.probes.measured(projectId, keyId, nano);
    }
  }

  private addCharge(projectId: string, keyId: string, nano: number, nowMs: number): void {
    if (nano <= 0) return;
    for (const scope of [`key:${keyId}`, 'project']) {
      for (const period of PERIODS) this.counters.add(projectId, `${scope}:${period.suffix}`, period.period, nano, nowMs);
    }
  }

  /** The day's and month's spend and budget of some subjects, as shared (the database) plus this instance's unsent part. */
  async stateOf(
    projectId: string,
    subjects: Array<Pick<BudgetSubject, 'scope' | 'values'>>,
    nowMs = Date.now(),
  ): Promise<Array<Record<'day' | 'month', BudgetPeriodState>>> {
    const windows = PERIODS.map((p) => windowOf(p.period, nowMs));
    const scopes = subjects.flatMap((s) => PERIODS.map((p) => `${s.scope}:${p.suffix}`));
    const shared = await this.repo.countersOf(
      projectId,
      scopes,
      windows.map((w) => w.start),
    );
    return subjects.map(({ scope, values }) => {
      const entries = PERIODS.map((p, i) => {
        const counter = `${scope}:${p.suffix}`;
        const { start, seconds } = windows[i];
        const spentNano = this.counters.totalWith(projectId, counter, start, shared.get(`${counter}|${start}`) ?? 0);
        const budget = values[p.field];
        return [
          p.name,
          {
            limitNano: budget === null ? null : nanoUsd(budget, 'down'),
            spentNano: Math.max(0, spentNano),
            resetsAt: new Date((start + seconds) * 1000),
          },
        ];
      });
      return Object.fromEntries(entries) as Record<'day' | 'month', BudgetPeriodState>;
    });
  }
}
