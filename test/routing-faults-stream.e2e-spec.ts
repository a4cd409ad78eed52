import { afterContent, faultsFor } from './fakes/fault-modes';
import { expectFaultOutcome } from './support/fault-expectations';
import { SURFACES } from './support/fault-surfaces';
import { arrangeCase, FaultWorld, startFaultWorld } from './support/fault-world';

/**
 * Issue 43, the routing fault suite (docs/testing.md), streamed calls: a version routed to a faulty
 * fake upstream, then `local/echo`. A stream fails over only until its first content reaches the
 * caller: a fault before it (500, 429, refused, hang, a stall past firstTokenTimeoutMs, a malformed
 * chunk, an upstream error event after message_start / the role chunk, i.e. after Parley's
 * response.created) ends in one clean stream from the second target; a fault after it (a cut, a
 * malformed chunk, an error event) ends in the surface's explicit error event, never a clean end.
 */
describe('routing faults on streams: failover before the first token, an explicit error after it', () => {
  let w: FaultWorld;

  beforeAll(async () => {
    w = await startFaultWorld();
  });
  afterAll(() => w.close());

  const surfaces = ['spec invoke', '/v1/chat/completions', '/v1/responses', '/v1/messages'] as const;
  const table = surfaces.flatMap((surface) =>
    faultsFor(true).map((fault) => [surface, fault, afterContent(fault, true) ? 'error after content' : 'failover'] as const),
  );
  // The Anthropic-format fake's error event after message_start, on the surfaces that translate it.
  const anthropicFormat = (['spec invoke', '/v1/responses'] as const).flatMap((surface) =>
    (['error_event', 'error_after'] as const).map(
      (fault) => [surface, fault, afterContent(fault, true) ? 'error after content' : 'failover'] as const,
    ),
  );

  it.each(table)('%s, %s: %s', async (surface, fault) => {
    const c = await arrangeCase(w, surface === '/v1/messages' ? 'anthropic' : 'openai', fault);
    const seen = await SURFACES[surface](w, c.slug, true);
    await expectFaultOutcome(w, c, seen, true, true);
  });

  it.each(anthropicFormat)('%s on an Anthropic-format upstream, %s: %s', async (surface, fault) => {
    const c = await arrangeCase(w, 'anthropic', fault);
    const seen = await SURFACES[surface](w, c.slug, true);
    await expectFaultOutcome(w, c, seen, true, true);
  });
});
