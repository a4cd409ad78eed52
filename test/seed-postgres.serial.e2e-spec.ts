import { Client } from 'pg';

import { SpawnedServer, spawnServer } from './support/spawn-server';

/**
 * First start on an empty PostgreSQL database seeds like the embedded default (issue 11 item 2),
 * with two replicas starting at once: exactly one seeds and prints keys, both serve the demo.
 * Runs in the PostgreSQL pass (DATABASE_URL set); it creates and drops a database of its own.
 */
const baseUrl = process.env.DATABASE_URL;
const describeOnPostgres = baseUrl ? describe : describe.skip;

describeOnPostgres('first start on an empty PostgreSQL database (built server, two replicas)', () => {
  const dbName = `parley_seed_${Date.now()}_${process.pid}`;
  const dbUrl = baseUrl ? Object.assign(new URL(baseUrl), { pathname: `/${dbName}` }).toString() : '';
  const servers: SpawnedServer[] = [];
  const admin = () => new Client({ connectionString: baseUrl });

  beforeAll(async () => {
    const client = admin();
    await client.connect();
    await client.query(`CREATE DATABASE ${dbName}`);
    await client.end();
  });
  afterAll(async () => {
    for (const s of servers) {
      s.child.kill('SIGTERM');
      await s.exited;
    }
    const client = admin();
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await client.end();
  });

  it('seeds once, prints the keys once, and both replicas serve the demo prompt with them', async () => {
    servers.push(...(await Promise.all([spawnServer({ DATABASE_URL: dbUrl }), spawnServer({ DATABASE_URL: dbUrl })])));
    const banners = servers.filter((s) => s.output().includes('export PARLEY_KEY='));
    expect(banners).toHaveLength(1);
    expect(servers.filter((s) => s.output().includes('Parley listening on'))).toHaveLength(1);
    const key = /export PARLEY_KEY=(\S+)/.exec(banners[0].output())![1];
    expect(banners[0].output()).toMatch(/export PARLEY_ADMIN_KEY=ak_/);

    for (const server of servers) {
      const res = await fetch(`${server.url}/default/default/demo-prompt/production`, {
        method: 'POST',
        headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
        body: JSON.stringify({ variables: { name: 'Ada' }, messages: [{ role: 'user', content: 'Hello from a replica' }] }),
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { choices: { message: { content: string } }[] }).choices[0].message.content).toBe(
        'Hello from a replica',
      );
    }

    const db = new Client({ connectionString: dbUrl });
    await db.connect();
    try {
      const workspaces = await db.query('SELECT slug FROM workspaces');
      expect(workspaces.rows).toEqual([{ slug: 'default' }]);
      const keys = await db.query('SELECT count(*)::int AS n FROM api_keys WHERE project_id IS NULL');
      expect(keys.rows[0].n).toBe(1);
    } finally {
      await db.end();
    }
  });
});
