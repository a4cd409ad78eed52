import { afterContent, faultsFor } from './fakes/fault-modes';
import { expectFaultOutcome } from './support/fault-expectations';
import { SURFACES } from './support/fault-surfaces';
import { arrangeCase, FaultWorld, startFaultWorld } from './support/fault-world';

/**
 * Issue 43, the routing fault suite (docs/testing.md), background /v1/responses in a conversation,
 * plain (read with a streamed retrieve) and streamed (the POST follows the events), each reader
 * dropping after two events and resuming. A fault before content ends `completed` with the second
 * target's answer and one turn; after content (streamed only), the events end in response.failed,
 * never response.completed.
 */
describe('routing faults on background responses read with resume', () => {
  let w: FaultWorld;

  beforeAll(async () => {
    w = await startFaultWorld();
  });
  afterAll(() => w.close());

  const table = [false, true].flatMap((stream) =>
    faultsFor(stream).map(
      (fault) => [stream ? 'streamed' : 'plain', fault, afterContent(fault, stream) ? 'error after content' : 'failover'] as const,
    ),
  );

  it.each(table)('%s, %s: %s', async (mode, fault) => {
    const stream = mode === 'streamed';
    const c = await arrangeCase(w, 'openai', fault);
    const seen = await SURFACES['background /v1/responses'](w, c.slug, stream);
    await expectFaultOutcome(w, c, seen, stream, true);
  });
});
