import { completionTokensOf, promptTokensOf, type TokenCounts } from '../providers';
import type { AttemptRecord } from '../request-logs/request-log-attempt';
import { addDecimals } from '../usage/pricing/decimal';
import type { CallCost, PricesService } from '../usage/pricing/prices.service';
import type { Route } from './invocation-attempts';
import type { InvokeOutcome } from './invocation-recorder';

/** A routed call's cost: all its billed attempts'; `servingCostUsd` is the current attempt's own. */
export interface RoutedCost extends CallCost {
  servingCostUsd: string | null;
}

const sum = (a: TokenCounts, b: TokenCounts): TokenCounts => ({
  input: a.input + b.input,
  cacheRead: a.cacheRead + b.cacheRead,
  cacheWrite: a.cacheWrite + b.cacheWrite,
  reasoning: a.reasoning + b.reasoning,
  output: a.output + b.output,
});

/**
 * A routed call's tokens (docs/routing.md, "Every attempt recorded"): the serving attempt's plus
 * those the provider reported for each failed one (a stream abandoned after it counted its
 * prompt). The usage rollups are fed from the log row, so they count every billed attempt.
 */
export function billedTokensOf(route: Route, serving: TokenCounts | undefined): TokenCounts | undefined {
  let total = serving;
  for (const failed of route.failed) if (failed.tokens) total = total ? sum(total, failed.tokens) : failed.tokens;
  return total;
}

/**
 * The cost of every billed attempt, each at its own target's price (set on the failed attempts'
 * records); null when an attempt with usage has no known price (never an understated sum).
 */
export async function routedCostOf(
  prices: PricesService,
  projectId: string,
  route: Route,
  serving: TokenCounts | undefined,
): Promise<RoutedCost> {
  const current = route.current;
  const own = await prices.costOf(projectId, current.provider, current.request.model, serving);
  let unknown = serving !== undefined && own.costUsd === null;
  const parts = own.costUsd === null ? [] : [own.costUsd];
  let priceRef = own.priceRef;
  for (const failed of route.failed) {
    if (!failed.tokens) continue;
    const cost = await prices.costOf(projectId, failed.target.provider, failed.target.request.model, failed.tokens);
    if (cost.costUsd === null) unknown = true;
    else {
      failed.record.costUsd = cost.costUsd;
      parts.push(cost.costUsd);
      priceRef ??= cost.priceRef;
    }
  }
  const costUsd = unknown || parts.length === 0 ? null : parts.length === 1 ? parts[0] : addDecimals(parts);
  return { costUsd, priceRef, servingCostUsd: own.costUsd };
}

/** The log's `attempts`: the failed ones, then the current one as the outcome ended it. */
export function attemptsOf(route: Route, outcome: InvokeOutcome, serving: TokenCounts | undefined, cost: CallCost): AttemptRecord[] {
  const current = route.current;
  const servingCost = (cost as Partial<RoutedCost>).servingCostUsd;
  const last: AttemptRecord = {
    provider: current.provider.name,
    model: current.request.model,
    status: outcome.status,
    latencyMs: Date.now() - route.attemptStartedAt,
    ...(route.ttftMs !== undefined ? { ttftMs: route.ttftMs } : {}),
    ...(serving ? { inputTokens: promptTokensOf(serving), outputTokens: completionTokensOf(serving) } : {}),
    ...(servingCost ? { costUsd: servingCost } : {}),
    ...(outcome.error !== null ? { error: outcome.error } : {}),
    ...(outcome.error !== null && route.lastReason ? { reason: route.lastReason } : {}),
  };
  return [...route.failed.map((failed) => failed.record), last];
}
