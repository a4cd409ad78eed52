'use strict';
/**
 * Parley as a cluster on loopback (docs/scaling.md): the fake upstream, three instances on one
 * PostgreSQL database, nginx in front with deploy/nginx.conf; bounded load through nginx, one
 * instance kill -9'd mid-load and restarted; then the database is checked turn by turn.
 * Started by scripts/cluster.sh, which provides DATABASE_URL (a fresh database) and the settings.
 * Exit code 1 when a turn is lost or duplicated, a thread is not contiguous, or a call failed that
 * was not in flight on the killed instance.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Client } = require('pg');
const { startFakeUpstream, startParley, startNginx, stop, stopAll } = require('./processes');
const { runLoad } = require('./load');

const settings = {
  durationS: Number(process.env.CLUSTER_DURATION_S ?? 60),
  clients: Number(process.env.CLUSTER_CLIENTS ?? 16),
  threads: Number(process.env.CLUSTER_THREADS ?? 8),
  killAtS: Number(process.env.CLUSTER_KILL_AT_S ?? 20),
  downS: Number(process.env.CLUSTER_DOWN_S ?? 5),
  portBase: Number(process.env.CLUSTER_PORT_BASE ?? 4800),
};
const ADMIN_KEY = 'cluster-admin-key-0123456789abcdef';
const databaseUrl = process.env.DATABASE_URL;

const log = (line) => console.log(`[cluster ${new Date().toISOString().slice(11, 23)}] ${line}`);

async function api(baseUrl, key, method, route, body) {
  const res = await fetch(`${baseUrl}${route}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${route}: ${res.status} ${text}`);
  return JSON.parse(text);
}

/** Workspace, project, key, the fake upstream as a provider, an assistant and a prompt deployed, shared threads. */
async function setUp(baseUrl, upstreamUrl) {
  await api(baseUrl, ADMIN_KEY, 'POST', '/v2/workspaces', { slug: 'cluster' });
  const project = await api(baseUrl, ADMIN_KEY, 'POST', '/v2/workspaces/cluster/projects', { slug: 'load' });
  const { key } = await api(baseUrl, ADMIN_KEY, 'POST', '/v2/workspaces/cluster/projects/load/api-keys', { name: 'cluster' });
  await api(baseUrl, key, 'POST', '/v2/provider-credentials', {
    name: 'fake',
    type: 'openai',
    baseUrl: upstreamUrl,
    apiKey: 'sk-cluster-fake',
  });
  for (const [slug, kind] of [
    ['helper', 'assistant'],
    ['summarize', 'prompt'],
  ]) {
    await api(baseUrl, key, 'POST', '/v2/prompts', { slug, kind });
    const version = await api(baseUrl, key, 'POST', `/v2/prompts/${slug}/versions`, {
      template: [{ role: 'system', content: 'You are terse.' }],
      provider: 'fake',
      model: 'gpt-fake',
    });
    await api(baseUrl, key, 'POST', `/v2/prompts/${slug}/deployments`, { environment: 'production', version: version.version });
  }
  const threads = [];
  for (let i = 0; i < settings.threads; i++)
    threads.push((await api(baseUrl, key, 'POST', '/v2/threads', { metadata: { shared: String(i) } })).id);
  return {
    baseUrl,
    key,
    projectId: project.id,
    assistantPath: '/cluster/load/helper/production',
    promptPath: '/cluster/load/summarize/production',
    threads,
  };
}

/** Upstream address(es) and status per call, from nginx's access log. */
function readAccessLog(file) {
  const byCall = new Map();
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const match = /^(\S+) "([^"]*)" "([^"]*)" (\d+)$/.exec(line);
    if (match && match[1] !== '-') byCall.set(match[1], { upstreams: match[2], upstreamStatus: match[3], status: Number(match[4]) });
  }
  return byCall;
}

/** Every shared thread, row by row: contiguous sequence, user turn then its echo, each marker's count. */
async function checkThreads(projectId, threads) {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const markers = new Map();
    const problems = [];
    let turns = 0;
    for (const threadId of threads) {
      const { rows } = await db.query(
        'SELECT seq, content, request_log_id FROM thread_messages WHERE project_id = $1 AND thread_id = $2 AND deleted_at IS NULL ORDER BY seq',
        [projectId, threadId],
      );
      rows.forEach((row, i) => {
        if (row.seq !== i + 1) problems.push(`thread ${threadId}: row ${i + 1} has seq ${row.seq}`);
      });
      for (let i = 0; i < rows.length; i += 2) {
        const [user, reply] = [rows[i], rows[i + 1]];
        const said = user.content?.[0];
        const answered = reply?.content?.[0];
        if (
          said?.role !== 'user' ||
          answered?.role !== 'assistant' ||
          answered.content !== said.content ||
          reply.request_log_id !== user.request_log_id
        ) {
          problems.push(`thread ${threadId}: seq ${user.seq} is not a user turn followed by its own answer`);
          break;
        }
        markers.set(said.content, (markers.get(said.content) ?? 0) + 1);
        turns++;
      }
    }
    return { markers, problems, turns };
  } finally {
    await db.end();
  }
}

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function main() {
  if (!databaseUrl) throw new Error('DATABASE_URL is required (scripts/cluster.sh creates a fresh database)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-cluster-'));
  const lbPort = settings.portBase;
  const ports = [1, 2, 3].map((i) => settings.portBase + i);
  const env = {
    DATABASE_URL: databaseUrl,
    PARLEY_ADMIN_KEY: ADMIN_KEY,
    PARLEY_SECRET_KEY: 'cluster-secret-key-0123456789abcdef0123',
    // The fake upstream is on loopback, which the outbound policy refuses unless allowed.
    PROVIDER_ALLOWED_HOSTS: '127.0.0.1',
    LOG_LEVEL: 'warn',
    // Longer than nginx keeps idle upstream connections (deploy/nginx.conf), so nginx never sends a
    // request on a connection Parley is closing.
    KEEP_ALIVE_TIMEOUT_MS: '65000',
    DB_POOL_SIZE: '5',
  };
  log(`settings ${JSON.stringify(settings)}; work dir ${dir}`);
  const upstream = await startFakeUpstream();
  // All at once, as replicas start: one migrates the fresh database under the advisory lock, the others wait for it.
  const instances = await Promise.all(ports.map((port, i) => startParley(`parley-${i + 1}`, port, env)));
  const nginx = await startNginx(dir, lbPort, ports);
  log(`up: fake upstream ${upstream.url}, instances on ${ports.join(', ')}, nginx on ${lbPort}`);
  const target = await setUp(`http://127.0.0.1:${lbPort}`, upstream.url);

  const victim = 1; // parley-2
  const started = Date.now();
  const deadline = started + settings.durationS * 1000;
  const events = {};
  const chaos = (async () => {
    await new Promise((resolve) => setTimeout(resolve, settings.killAtS * 1000));
    events.killAt = Date.now();
    instances[victim].child.kill('SIGKILL');
    log(`kill -9 ${instances[victim].name} (pid ${instances[victim].pid}) at +${((events.killAt - started) / 1000).toFixed(1)} s`);
    await instances[victim].exitedPromise;
    await new Promise((resolve) => setTimeout(resolve, settings.downS * 1000));
    instances[victim] = await startParley(instances[victim].name, ports[victim], env);
    events.restartedAt = Date.now();
    log(`${instances[victim].name} restarted and healthy at +${((events.restartedAt - started) / 1000).toFixed(1)} s`);
  })();
  // The load lasts the set duration, and at least 12 s past the restart (nginx tries a failed
  // server again after fail_timeout, 10 s at most), so the restarted instance is seen serving
  // again; never more than 2 minutes past the set duration.
  const done = () =>
    Date.now() >= deadline + 120_000 ||
    (Date.now() >= deadline && events.restartedAt !== undefined && Date.now() >= events.restartedAt + 12_000);
  const calls = await runLoad(target, { clients: settings.clients, threads: target.threads, done });
  await chaos;
  const elapsedS = (Date.now() - started) / 1000;

  const access = readAccessLog(path.join(dir, 'access.log'));
  const victimAddress = `127.0.0.1:${ports[victim]}`;
  const failed = calls.filter((c) => !c.ok);
  // Allowed: calls nginx had sent to the killed instance when it died (nginx does not retry a POST
  // once sent; a refused connection it does retry on another instance). "When it died" includes
  // the moment nginx takes to see its kept-alive connections to it close: a call sent over one in
  // that window (NOTICE_MS) met a dead process too. Nothing else.
  const NOTICE_MS = 1000;
  const inFlightOnVictim = (c) =>
    c.start <= events.killAt + NOTICE_MS && c.end >= events.killAt && access.get(c.id)?.upstreams === victimAddress;
  const unexpected = failed.filter((c) => !inFlightOnVictim(c));

  const { markers, problems, turns } = await checkThreads(target.projectId, target.threads);
  const threadCalls = calls.filter((c) => c.threadId);
  const lost = threadCalls.filter((c) => c.ok && (markers.get(c.marker) ?? 0) === 0);
  const duplicated = threadCalls.filter((c) => (markers.get(c.marker) ?? 0) > 1);
  const issued = new Set(threadCalls.map((c) => c.marker));
  const unknown = [...markers.keys()].filter((m) => !issued.has(m));
  const failedButStored = threadCalls.filter((c) => !c.ok && markers.get(c.marker) === 1).length;

  const latencies = calls
    .filter((c) => c.ok)
    .map((c) => c.end - c.start)
    .sort((a, b) => a - b);
  const byOp = (op) => calls.filter((c) => c.op === op);
  const servedBy = new Map();
  for (const { upstreams } of access.values()) {
    const last = upstreams.split(', ').at(-1);
    servedBy.set(last, (servedBy.get(last) ?? 0) + 1);
  }
  const afterRestart = calls.filter(
    (c) => c.start >= events.restartedAt && access.get(c.id)?.upstreams.split(', ').at(-1) === victimAddress && c.ok,
  ).length;

  const report = [
    `duration                 ${elapsedS.toFixed(1)} s, ${settings.clients} clients, ${settings.threads} shared threads, 3 instances behind nginx`,
    `kill -9                  parley-2 at +${((events.killAt - started) / 1000).toFixed(1)} s, back at +${((events.restartedAt - started) / 1000).toFixed(1)} s`,
    `calls                    ${calls.length} (assistant ${byOp('assistant').length}, assistant stream ${byOp('assistant-stream').length}, prompt ${byOp('prompt').length})`,
    `calls answered           ${calls.length - failed.length} (${((calls.length - failed.length) / elapsedS).toFixed(1)}/s)`,
    `errors                   ${failed.length} (in flight on the killed instance: ${failed.length - unexpected.length}; other: ${unexpected.length})`,
    `requests per instance    ${[...servedBy.entries()]
      .sort()
      .map(([addr, n]) => `${addr} ${n}`)
      .join(', ')} (parley-2 after its restart: ${afterRestart})`,
    `turns stored             ${turns} on ${target.threads.length} threads (${failedButStored} of them from calls that failed at the kill: committed before the client saw the error)`,
    `turns lost               ${lost.length}`,
    `turns duplicated         ${duplicated.length}`,
    `turns of unknown origin  ${unknown.length}`,
    `thread contiguity        ${problems.length === 0 ? 'ok (every thread: seq 1..n without gaps, each user turn followed by its own answer)' : `BROKEN: ${problems.slice(0, 5).join('; ')}`}`,
    `latency of answered      p50 ${percentile(latencies, 50)} ms, p99 ${percentile(latencies, 99)} ms, max ${latencies.at(-1)} ms`,
  ];
  console.log(`\n${report.join('\n')}\n`);
  const describe = (c) =>
    `${c.id} (${c.op}) ${c.error.split('\n')[0]} via ${access.get(c.id)?.upstreams ?? '?'}, from ${c.start - events.killAt} to ${c.end - events.killAt} ms after the kill`;
  for (const c of unexpected.slice(0, 10)) console.log(`unexpected error ${describe(c)}`);
  for (const c of failed.filter(inFlightOnVictim).slice(0, 5)) console.log(`error at the kill ${describe(c)}`);

  await stop(nginx, 'SIGQUIT');
  await stopAll();
  fs.rmSync(dir, { recursive: true, force: true });
  const ok =
    unexpected.length === 0 &&
    lost.length === 0 &&
    duplicated.length === 0 &&
    unknown.length === 0 &&
    problems.length === 0 &&
    calls.length > failed.length;
  log(ok ? 'PASS' : 'FAIL');
  process.exitCode = ok ? 0 : 1;
}

main().catch(async (err) => {
  console.error(err);
  await stopAll();
  process.exitCode = 1;
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => void stopAll().then(() => process.exit(130)));
