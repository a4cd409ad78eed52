'use strict';
/** The cluster's child processes: Parley instances, the fake upstream and nginx. */
const { spawn, fork } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const started = new Set();

/** Keeps the last lines a process wrote, to show when it fails. */
function track(name, child) {
  const proc = { name, child, pid: child.pid, output: [], exited: false };
  const keep = (chunk) => {
    for (const line of chunk.toString('utf8').split('\n')) if (line) proc.output.push(line);
    if (proc.output.length > 100) proc.output.splice(0, proc.output.length - 100);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  proc.exitedPromise = new Promise((resolve) =>
    child.on('exit', (code, signal) => {
      proc.exited = true;
      proc.exit = signal ?? code;
      started.delete(proc);
      resolve();
    }),
  );
  started.add(proc);
  return proc;
}

/** bench/lib/fake-upstream.js: an OpenAI-compatible echo server in its own process; resolves with its /v1 URL. */
function startFakeUpstream() {
  const child = fork(path.join(ROOT, 'bench', 'lib', 'fake-upstream.js'), [], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  const proc = track('fake-upstream', child);
  return new Promise((resolve, reject) => {
    child.once('message', (message) => resolve({ ...proc, url: message.url }));
    child.once('exit', () => reject(new Error(`fake upstream exited: ${proc.output.join('\n')}`)));
  });
}

/** `node dist/main.js` on `port`; resolves once GET /health answers. */
async function startParley(name, port, env) {
  const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'main.js')], {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const proc = track(name, child);
  proc.port = port;
  await waitHealthy(proc, `http://127.0.0.1:${port}/health`);
  return proc;
}

async function waitHealthy(proc, url, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.exited) throw new Error(`${proc.name} exited (${proc.exit}):\n${proc.output.join('\n')}`);
    try {
      if ((await fetch(url, { signal: AbortSignal.timeout(1000) })).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${proc.name} not healthy after ${timeoutMs} ms:\n${proc.output.join('\n')}`);
}

/**
 * nginx with deploy/nginx.conf — the file docker-compose mounts — whose `upstream parley` servers
 * and `listen` port are rewritten for loopback, inside a minimal main configuration of our own
 * (pid, logs and temp files under `dir`, not daemonised). The access log records, per call, the
 * X-Cluster-Call header, the upstream(s) tried and the status: how errors are traced to an instance.
 */
async function startNginx(dir, listenPort, upstreamPorts) {
  const site = fs.readFileSync(path.join(ROOT, 'deploy', 'nginx.conf'), 'utf8');
  // The compose server line's parameters (max_fails, fail_timeout, ...) apply to each instance,
  // except `resolve`: loopback addresses need no DNS (and Debian's nginx 1.22 predates it).
  const SERVER_LINE = /^\s*server\s+[^\s;{]+:\d+([^;]*);[^\n]*$/gm;
  const parameters = (SERVER_LINE.exec(site)?.[1] ?? '')
    .split(/\s+/)
    .filter((p) => p && p !== 'resolve')
    .join(' ');
  const servers = upstreamPorts.map((port) => `  server 127.0.0.1:${port}${parameters ? ` ${parameters}` : ''};`).join('\n');
  const rewritten = site
    .replace(/^\s*resolver\s[^;]*;[^\n]*$/m, '')
    .replace(SERVER_LINE, '')
    .replace(/upstream\s+parley\s*\{/, (head) => `${head}\n${servers}`)
    .replace(/listen\s+\d+\s*;/, `listen 127.0.0.1:${listenPort};`);
  if (!rewritten.includes(`server 127.0.0.1:${upstreamPorts[0]}`))
    throw new Error('deploy/nginx.conf has no "upstream parley { ... }" block to point at the instances');
  // Workers run as an unprivileged user when the master is root: they must reach their temp files.
  fs.chmodSync(dir, 0o755);
  for (const sub of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) {
    fs.mkdirSync(path.join(dir, sub), { recursive: true });
    fs.chmodSync(path.join(dir, sub), 0o777);
  }
  fs.writeFileSync(path.join(dir, 'site.conf'), rewritten);
  fs.writeFileSync(
    path.join(dir, 'nginx.conf'),
    `worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  log_format cluster '$http_x_cluster_call "$upstream_addr" "$upstream_status" $status';
  access_log ${dir}/access.log cluster;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  include ${dir}/site.conf;
}
`,
  );
  const child = spawn('nginx', ['-p', dir, '-e', `${dir}/error.log`, '-c', `${dir}/nginx.conf`], { stdio: ['ignore', 'pipe', 'pipe'] });
  const proc = track('nginx', child);
  await waitHealthy(proc, `http://127.0.0.1:${listenPort}/health`, 15_000);
  return proc;
}

async function stop(proc, signal = 'SIGTERM') {
  if (!proc || proc.exited) return;
  proc.child.kill(signal);
  await Promise.race([proc.exitedPromise, new Promise((resolve) => setTimeout(resolve, 10_000))]);
  if (!proc.exited) proc.child.kill('SIGKILL');
}

async function stopAll() {
  await Promise.all([...started].map((proc) => stop(proc)));
}

module.exports = { ROOT, startFakeUpstream, startParley, startNginx, stop, stopAll };
