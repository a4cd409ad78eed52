import { faultsFor } from './fakes/fault-modes';
import { expectFaultOutcome } from './support/fault-expectations';
import { SURFACES } from './support/fault-surfaces';
import { arrangeCase, FaultWorld, startFaultWorld } from './support/fault-world';

/**
 * Issue 43, the routing fault suite (docs/testing.md), plain (non-streamed) calls: a version routed
 * to a faulty fake upstream, then `local/echo`. Whatever the fault (500, 429 with Retry-After,
 * connection refused, a hang before headers, headers and no body, half a body, a body that is not
 * JSON) nothing has reached the caller yet, so each surface answers once, cleanly, from the second
 * target; the log holds both attempts, usage one call, the thread or conversation one turn.
 * Streams: routing-faults-stream.e2e-spec.ts; background responses: routing-faults-background.e2e-spec.ts.
 */
describe('routing faults on plain calls: one clean answer from the next target', () => {
  let w: FaultWorld;

  beforeAll(async () => {
    w = await startFaultWorld();
  });
  afterAll(() => w.close());

  const surfaces = ['spec invoke', '/v1/chat/completions', '/v1/responses', '/v1/messages'] as const;
  const table = surfaces.flatMap((surface) => faultsFor(false).map((fault) => [surface, fault] as const));

  it.each(table)('%s, %s', async (surface, fault) => {
    // The Anthropic surface meets the Anthropic-format fake; the others the OpenAI-format one.
    const c = await arrangeCase(w, surface === '/v1/messages' ? 'anthropic' : 'openai', fault);
    const seen = await SURFACES[surface](w, c.slug, false);
    await expectFaultOutcome(w, c, seen, false, true);
  });
});
