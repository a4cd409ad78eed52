import { PGliteInstance } from 'typeorm-pglite/dist/pglite-instance';

import { revokeLeases, useWorkerPGlite } from './shared-pglite';

type Lease = {
  query(sql: string): Promise<{ rows: unknown[] }>;
  listen(channel: string, cb: (payload: string) => void): Promise<() => Promise<void>>;
};
const leaseOf = () => (PGliteInstance as unknown as { instance: Lease }).instance;
const onPGlite = !process.env.DATABASE_URL && process.env.PARLEY_TEST_PGLITE_TEMPLATE && process.env.PARLEY_TEST_SHARED_PGLITE !== '0';

/** The worker's shared PGlite (test/harness/test-files.ts revokes a file's leases when the next file starts). */
(onPGlite ? describe : describe.skip)('the worker PGlite lease', () => {
  it('answers until revoked, then refuses every call and delivers no more notifications', async () => {
    expect(await useWorkerPGlite()).toBe(true);
    const lease = leaseOf();
    expect((await lease.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    const heard: string[] = [];
    await lease.listen('lease_spec', (payload) => heard.push(payload));
    await lease.query("NOTIFY lease_spec, 'before'");
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(heard).toEqual(['before']);

    await revokeLeases();
    await expect(lease.query('SELECT 1')).rejects.toThrow('The shared PGlite was used after its test file ended');
    // The next lease reaches the same database; the revoked one's listener hears nothing.
    expect(await useWorkerPGlite()).toBe(true);
    await leaseOf().query("NOTIFY lease_spec, 'after'");
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(heard).toEqual(['before']);
  });

  it('rolls back a transaction the revoked lease left open', async () => {
    expect(await useWorkerPGlite()).toBe(true);
    await leaseOf().query('BEGIN');
    await leaseOf().query('CREATE TABLE lease_spec_left_open (id int)');
    await revokeLeases();
    expect(await useWorkerPGlite()).toBe(true);
    expect((await leaseOf().query("SELECT to_regclass('lease_spec_left_open') AS t")).rows).toEqual([{ t: null }]);
  });
});
