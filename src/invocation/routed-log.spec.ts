import type { TokenCounts } from '../providers';
import type { ResolvedRouting, ResolvedRoutingTarget } from '../registry/resolved-deployment';
import type { PricesService } from '../usage/pricing/prices.service';
import type { PreparedInvocation } from './invocation.types';
import { Route } from './invocation-attempts';
import { attemptsOf, billedTokensOf, routedCostOf } from './routed-log';

const target = (index: number): ResolvedRoutingTarget => ({
  index,
  provider: { name: `p${index}`, type: 'openai', credentialId: null },
  model: `m${index}`,
  weight: 1,
  parameters: index === 1 ? { temperature: 0.9 } : {},
});
const routing: ResolvedRouting = { strategy: 'priority', targets: [target(0), target(1)], fallbackOn: ['server_error'] };
const prepared = {
  request: { model: 'm0', messages: [], temperature: 0.2 },
  parameters: { temperature: 0.2 },
  input: { overrides: {}, target: { deployment: { parameters: { temperature: 0.2 } } } },
} as unknown as PreparedInvocation;
const tokens = (input: number, output: number): TokenCounts => ({ input, cacheRead: 0, cacheWrite: 0, reasoning: 0, output });
/** $1 per input token, $2 per output token; provider p9 has no price. */
const prices = {
  costOf: (_project: string, provider: { name: string }, _model: string, counts: TokenCounts | undefined) =>
    Promise.resolve(
      !counts || provider.name === 'p9'
        ? { costUsd: null, priceRef: null }
        : { costUsd: String(counts.input + 2 * counts.output), priceRef: `test: ${provider.name}` },
    ),
} as unknown as PricesService;

function failedOver(billed?: TokenCounts): Route {
  const route = new Route(routing, routing.targets, prepared, 'proj');
  const first = route.current;
  route.next({
    target: first,
    record: { provider: 'p0', model: 'm0', status: 502, latencyMs: 3, reason: 'server_error', error: 'boom' },
    ...(billed ? { tokens: billed } : {}),
  });
  return route;
}

describe('routed request logs', () => {
  it("a target's request: its model, its parameters over the version's, the caller's over both", () => {
    const route = failedOver();
    expect(route.current.request).toMatchObject({ model: 'm1', temperature: 0.9 });
    expect(route.current.parameters).toEqual({ temperature: 0.9 });
    const asked = { ...prepared, input: { ...prepared.input, overrides: { temperature: 0 } } } as unknown as PreparedInvocation;
    const own = new Route(routing, [target(1)], asked, 'proj');
    expect(own.current.request.temperature).toBe(0.2);
  });

  it('adds the tokens and cost a failed attempt was billed to the serving attempt', async () => {
    const route = failedOver(tokens(10, 0));
    expect(billedTokensOf(route, tokens(5, 3))).toEqual(tokens(15, 3));
    const cost = await routedCostOf(prices, 'proj', route, tokens(5, 3));
    expect(cost).toEqual({ costUsd: '21', priceRef: 'test: p1', servingCostUsd: '11' });
    const attempts = attemptsOf(route, { status: 200, error: null, startedAt: new Date(), ttftMs: null }, tokens(5, 3), cost);
    expect(attempts).toEqual([
      expect.objectContaining({ provider: 'p0', status: 502, costUsd: '10', reason: 'server_error' }),
      expect.objectContaining({ provider: 'p1', model: 'm1', status: 200, inputTokens: 5, outputTokens: 3, costUsd: '11' }),
    ]);
  });

  it('leaves tokens and cost to the serving attempt when the failed one reported none', async () => {
    const route = failedOver();
    expect(billedTokensOf(route, tokens(5, 3))).toEqual(tokens(5, 3));
    expect((await routedCostOf(prices, 'proj', route, tokens(5, 3))).costUsd).toBe('11');
    expect(billedTokensOf(route, undefined)).toBeUndefined();
    expect((await routedCostOf(prices, 'proj', route, undefined)).costUsd).toBeNull();
  });
});
