import { ColdKeyProbes } from './cold-key-probes';
import { CostEstimates } from './cost-estimates';
import { LimitsRepository, ProbeClaim } from './limits.repository';
import { SharedCounters } from './shared-counters';

/** limit_budget_probes in memory, as the instances share it: one lease per key. */
function leases() {
  const rows = new Map<string, { holder: string; costNano: number | null }>();
  return {
    rows,
    repo: {
      claimProbe: async (projectId: string, keyId: string, holder: string): Promise<ProbeClaim> => {
        const row = rows.get(`${projectId}|${keyId}`);
        if (!row) {
          rows.set(`${projectId}|${keyId}`, { holder, costNano: null });
          return { state: 'won' };
        }
        return row.costNano === null ? { state: 'wait' } : { state: 'known', costNano: row.costNano };
      },
      settleProbe: async (projectId: string, keyId: string, holder: string, costNano: number) => {
        const row = rows.get(`${projectId}|${keyId}`);
        if (row?.holder === holder) row.costNano = costNano;
      },
      dropProbe: async (projectId: string, keyId: string, holder: string) => {
        if (rows.get(`${projectId}|${keyId}`)?.holder === holder) rows.delete(`${projectId}|${keyId}`);
      },
    } as unknown as LimitsRepository,
  };
}

const counters = { flush: async () => undefined } as unknown as SharedCounters;

describe('a cold key’s first call (docs/usage.md, "Budgets")', () => {
  it('runs alone across instances: the other instance waits, then learns the measured cost', async () => {
    const shared = leases();
    const [a, b] = [new CostEstimates(), new CostEstimates()];
    const [onA, onB] = [new ColdKeyProbes(a, counters, shared.repo), new ColdKeyProbes(b, counters, shared.repo)];
    const probe = await onA.turn('p', 'k');
    expect(probe).toBeInstanceOf(Function);
    let waited = false;
    const other = onB.turn('p', 'k').then((end) => {
      waited = true;
      return end;
    });
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(waited).toBe(false);
    a.observe('p', 'k', 800_000_000);
    onA.measured('p', 'k', 800_000_000);
    expect(await other).toBeUndefined();
    expect(b.of('p', 'k')).toBe(800_000_000);
  });

  it('a waiting call whose client left stops waiting at once', async () => {
    const shared = leases();
    const estimates = new CostEstimates();
    const probes = new ColdKeyProbes(estimates, counters, shared.repo);
    const first = await probes.turn('p', 'k');
    expect(first).toBeInstanceOf(Function);
    const left = new AbortController();
    const startedAt = Date.now();
    const waiting = probes.turn('p', 'k', left.signal);
    setTimeout(() => left.abort(), 30);
    expect(await waiting).toBeUndefined();
    // Not the 30 s a waiting call may wait for the probe.
    expect(Date.now() - startedAt).toBeLessThan(1_000);
    // The probe itself is still the key's: a third call waits for it.
    let third = false;
    void probes.turn('p', 'k').then(() => (third = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(third).toBe(false);
    first!();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(third).toBe(true);
  });

  it('a probe that ends without a cost frees the lease for the next call anywhere', async () => {
    const shared = leases();
    const probes = new ColdKeyProbes(new CostEstimates(), counters, shared.repo);
    const end = await probes.turn('p', 'k');
    expect(shared.rows.size).toBe(1);
    end!();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(shared.rows.size).toBe(0);
  });
});
