'use strict';
/** The throwaway PostgreSQL database of one benchmark run, and the CPU time of its backends. */
const { execFileSync } = require('node:child_process');
const { Client } = require('pg');
const { cpuMicros, killAllNow, stopAll } = require('./processes');

const PG = {
  host: process.env.BENCH_PGHOST || '127.0.0.1',
  port: Number(process.env.BENCH_PGPORT || 5432),
  user: process.env.BENCH_PGUSER || 'postgres',
};
const cliArgs = ['-h', PG.host, '-p', String(PG.port), '-U', PG.user];

function createDatabase(name) {
  execFileSync('createdb', [...cliArgs, name], { stdio: 'pipe' });
  return `postgres://${PG.user}@${PG.host}:${PG.port}/${name}`;
}

function dropDatabase(name) {
  // --force: also ends sessions a crashed server may have left behind.
  execFileSync('dropdb', [...cliArgs, '--if-exists', '--force', name], { stdio: 'pipe' });
}

/**
 * Runs one of the bench's tools (ab.js, perf.js, reads.js): `main`, then stop its children and
 * exit (they would keep the event loop alive). On exit, Ctrl-C or SIGTERM every child is stopped
 * and the databases `names()` lists are dropped (those not created yet are skipped).
 */
function runTool(main, names) {
  process.on('exit', () => {
    killAllNow();
    for (const name of names()) {
      try {
        dropDatabase(name);
      } catch {
        /* not created, or gone already */
      }
    }
  });
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => process.exit(130));
  main()
    .catch((err) => {
      console.error(err);
      process.exitCode = 1;
    })
    .finally(() => stopAll().then(() => process.exit()));
}

/** A monitoring connection (to the `postgres` database, so it is not one of the measured backends). */
async function monitor(dbName) {
  const client = new Client({ ...PG, database: 'postgres', application_name: 'parley-bench-monitor' });
  await client.connect();
  const backendPids = async () => {
    const { rows } = await client.query('SELECT pid FROM pg_stat_activity WHERE datname = $1', [dbName]);
    return rows.map((r) => r.pid);
  };
  return {
    async version() {
      const { rows } = await client.query('SHOW server_version');
      return rows[0].server_version;
    },
    /** CPU of the database's backends so far, per pid; call before and after a measurement. */
    async snapshot() {
      const out = new Map();
      for (const pid of await backendPids()) out.set(pid, cpuMicros(pid) ?? 0);
      return out;
    },
    /** CPU the backends used between two snapshots (a backend started in between counts from 0). */
    cpuBetween(before, after) {
      let sum = 0;
      for (const [pid, end] of after) sum += Math.max(0, end - (before.get(pid) ?? 0));
      return sum;
    },
    close: () => client.end(),
  };
}

/**
 * What the database itself costs a call, for reading Parley's figures: the round trip of
 * `SELECT 1`, and a one-row INSERT committed on its own (the fsync of the WAL included), each run
 * sequentially on one connection to the benchmark's database.
 */
async function probe(databaseUrl, count = 400) {
  const { summarize } = require('./stats');
  const client = new Client({ connectionString: databaseUrl, application_name: 'parley-bench-probe' });
  await client.connect();
  try {
    await client.query('CREATE TABLE IF NOT EXISTS bench_probe (id integer)');
    const time = async (sql) => {
      const out = [];
      for (let i = 0; i < count; i++) {
        const start = process.hrtime.bigint();
        await client.query(sql);
        out.push(Number(process.hrtime.bigint() - start) / 1e6);
      }
      return summarize(out);
    };
    await time('SELECT 1');
    return { selectRoundTripMs: await time('SELECT 1'), insertCommitMs: await time('INSERT INTO bench_probe VALUES (1)') };
  } finally {
    await client.query('DROP TABLE IF EXISTS bench_probe').catch(() => {});
    await client.end();
  }
}

module.exports = { createDatabase, dropDatabase, monitor, probe, runTool };
