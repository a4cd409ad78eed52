'use strict';
/**
 * Scenario (p), the peer a user would pick instead: Portkey's open-source AI gateway
 * (@portkey-ai/gateway, TypeScript on Hono + @hono/node-server, stores nothing). It is not a
 * project dependency: the benchmark installs the pinned version on demand with npm into
 * bench/.peers (git-ignored) and reuses it on later runs. When it cannot be installed or started
 * the scenario is skipped and the run says why (BENCH_PORTKEY=0 skips it on purpose).
 *
 * It is started with `--headless` (no UI) and called with `x-portkey-provider: openai` and
 * `x-portkey-custom-host: <fake upstream>/v1`: the same OpenAI-compatible call as the others.
 * Its stock install answers 500 to `stream: true`, so it is compared non-streamed only.
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { startNode } = require('./processes');

const VERSION = '1.15.2';
const PACKAGE = '@portkey-ai/gateway';
const PEERS = path.join(__dirname, '..', '.peers');
const ENTRY = path.join(PEERS, 'node_modules', '@portkey-ai', 'gateway', 'build', 'start-server.js');
/** The bench's port range on the shared machine (PLAN: 4300-4399); Portkey takes no port 0. */
const PORTS = [4300, 4399];

function installedVersion() {
  try {
    return JSON.parse(fs.readFileSync(path.join(PEERS, 'node_modules', '@portkey-ai', 'gateway', 'package.json'), 'utf8')).version;
  } catch {
    return null;
  }
}

/** Installs the pinned version into bench/.peers unless it is there; the entry script, or throws. */
function ensureInstalled(log) {
  if (installedVersion() === VERSION && fs.existsSync(ENTRY)) return ENTRY;
  fs.mkdirSync(PEERS, { recursive: true });
  const manifest = path.join(PEERS, 'package.json');
  if (!fs.existsSync(manifest)) {
    fs.writeFileSync(
      manifest,
      `${JSON.stringify({ name: 'parley-bench-peers', private: true, description: 'Peers installed by npm run bench; not part of Parley' }, null, 2)}\n`,
    );
  }
  log(`installing ${PACKAGE}@${VERSION} into ${path.relative(process.cwd(), PEERS)} (npm, once)`);
  // --ignore-scripts: its only install script is patch-package, with no patches in the published package.
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error', `${PACKAGE}@${VERSION}`], {
    cwd: PEERS,
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 180_000,
  });
  if (installedVersion() !== VERSION || !fs.existsSync(ENTRY)) throw new Error(`npm did not install ${PACKAGE}@${VERSION}`);
  return ENTRY;
}

function portIsFree(port) {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, () => probe.close(() => resolve(true)));
  });
}

async function freePort() {
  const offset = process.pid % (PORTS[1] - PORTS[0] + 1);
  for (let i = 0; i <= PORTS[1] - PORTS[0]; i++) {
    const port = PORTS[0] + ((offset + i) % (PORTS[1] - PORTS[0] + 1));
    if (await portIsFree(port)) return port;
  }
  throw new Error(`no free port in ${PORTS.join('-')}`);
}

/**
 * Starts Portkey. Resolves with { proc, url, headers } or { skipped: reason }; never rejects,
 * because a peer that cannot run must not stop the benchmark.
 */
async function startPortkey(upstreamUrl, log) {
  if (process.env.BENCH_PORTKEY === '0') return { skipped: 'BENCH_PORTKEY=0' };
  let entry;
  try {
    entry = ensureInstalled(log);
  } catch (err) {
    const detail = String(err.stderr || err.message)
      .trim()
      .split('\n')
      .slice(-3)
      .join(' ');
    return { skipped: `could not install ${PACKAGE}@${VERSION}: ${detail}` };
  }
  try {
    const port = await freePort();
    const proc = await startNode(`Portkey ${VERSION}`, entry, {
      nodeArgs: [],
      args: ['--headless', `--port=${port}`],
      readyPattern: /(Ready for connections)/,
      cwd: PEERS,
    });
    return {
      proc,
      version: VERSION,
      url: `http://127.0.0.1:${port}/v1`,
      headers: { authorization: 'Bearer sk-bench', 'x-portkey-provider': 'openai', 'x-portkey-custom-host': upstreamUrl },
    };
  } catch (err) {
    return { skipped: `${PACKAGE}@${VERSION} did not start: ${err.message.split('\n')[0]}` };
  }
}

module.exports = { startPortkey, PORTKEY_VERSION: VERSION };
