'use strict';
/**
 * Log storage of a long thread: one assistant thread of TURNS calls, made one after another, then
 * the size of each call's request log read from the database. If a log stored the whole history
 * it sent, bytes per log would grow with the turn (quadratic storage for the thread); stored as
 * the new messages plus a reference to the thread's range, it stays flat (linear storage).
 *
 * Every turn sends a different text (a pseudo-random, poorly compressible one), so PostgreSQL's
 * TOAST compression cannot hide a repeated history. Two sizes per log:
 *   stored   the sum of pg_column_size() of the row's columns (what the table holds, compressed);
 *   logical  octet_length of the row as text (uncompressed).
 */
const crypto = require('node:crypto');
const { Client } = require('pg');
const { threadIdOf, VARIABLES } = require('./scenarios');

const TURNS = 200;
const REPORTED_TURNS = [1, 50, 200];

/** A different ~300-byte text per turn, the same on every run. */
function turnText(turn) {
  const words = crypto
    .createHash('sha512')
    .update(`turn ${turn}`)
    .digest('base64')
    .match(/.{1,7}/g);
  const more = crypto
    .createHash('sha512')
    .update(`more ${turn}`)
    .digest('base64')
    .match(/.{1,7}/g);
  return `Turn ${turn}: ${[...words, ...more].join(' ')} ${[...words].reverse().join(' ')}`;
}

async function invoke(baseUrl, path, key, body) {
  const res = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`log storage: turn answered ${res.status}: ${text.slice(0, 300)}`);
  return threadIdOf(res.headers);
}

/** Columns of request_logs, so the stored size is the sum of each column's pg_column_size. */
async function storedSizeSql(client) {
  const { rows } = await client.query(
    "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'request_logs' ORDER BY ordinal_position",
  );
  return rows.map((r) => `coalesce(pg_column_size(r.${client.escapeIdentifier(r.column_name)}), 0)`).join(' + ');
}

async function measureLogStorage({ parleyUrl, assistantPath, key, databaseUrl, turns = TURNS }) {
  let threadId = null;
  const started = Date.now();
  for (let turn = 1; turn <= turns; turn++) {
    const body = { variables: VARIABLES, messages: [{ role: 'user', content: turnText(turn) }], ...(threadId ? { threadId } : {}) };
    const id = await invoke(parleyUrl, assistantPath, key, body);
    threadId ??= id;
    if (!threadId) throw new Error('log storage: the first turn answered no thread id');
  }
  const callsSec = (Date.now() - started) / 1000;
  const client = new Client({ connectionString: databaseUrl, application_name: 'parley-bench-log-storage' });
  await client.connect();
  try {
    const stored = await storedSizeSql(client);
    const { rows } = await client.query(
      `SELECT r.id, (${stored})::bigint AS stored, octet_length(r::text)::bigint AS logical
         FROM request_logs r WHERE r.thread_id = $1 ORDER BY r.started_at, r.id`,
      [threadId],
    );
    if (rows.length !== turns) throw new Error(`log storage: ${rows.length} request logs for ${turns} turns of thread ${threadId}`);
    const at = (turn) => ({ turn, storedBytes: Number(rows[turn - 1].stored), logicalBytes: Number(rows[turn - 1].logical) });
    const sum = (field) => rows.reduce((n, r) => n + Number(r[field]), 0);
    const perTurn = REPORTED_TURNS.filter((t) => t <= turns).map(at);
    const first = perTurn[0];
    const last = perTurn[perTurn.length - 1];
    return {
      turns,
      threadId,
      callsSec: Math.round(callsSec * 10) / 10,
      perTurn,
      totalStoredBytes: sum('stored'),
      totalLogicalBytes: sum('logical'),
      // Flat bytes per log ⇔ storage linear in turns; a log that copies the history grows ~turn×.
      lastOverFirstStored: Math.round((last.storedBytes / first.storedBytes) * 1000) / 1000,
      lastOverFirstLogical: Math.round((last.logicalBytes / first.logicalBytes) * 1000) / 1000,
    };
  } finally {
    await client.end();
  }
}

module.exports = { measureLogStorage, LOG_STORAGE_TURNS: TURNS };
