'use strict';
/**
 * Prepares a fresh Parley through its REST API, as an operator would: workspace and project (admin
 * key), a project key, an `openai` provider credential pointing at the fake upstream, and a prompt
 * and an assistant deployed to `production` on it; then a second prompt of the same content
 * deployed as a 50/50 split sticky by user (docs/experiments.md), for scenario (i), and one with a
 * two-target routing block whose first target is the same upstream (docs/routing.md), for (j).
 */
const { createHash } = require('node:crypto');

const WORKSPACE = 'bench';
const PROJECT = 'perf';

/** The system prompt both use: one declared variable with a default, one the request sends. */
const TEMPLATE = [{ role: 'system', content: 'You are a concise assistant for {{audience}}. Answer in {{language}}.' }];

/** The version both use (and both arms of the split). */
const CONTENT = {
  template: TEMPLATE,
  provider: 'fake',
  model: 'gpt-bench',
  parameters: { temperature: 0.2, max_tokens: 64 },
  variables: { audience: 'engineers' },
};

async function call(baseUrl, key, method, path, body) {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 500)}`);
  return text ? JSON.parse(text) : null;
}

async function setUpParley(baseUrl, adminKey, upstreamUrl) {
  await call(baseUrl, adminKey, 'POST', '/v2/workspaces', { slug: WORKSPACE, name: 'Benchmark' });
  await call(baseUrl, adminKey, 'POST', `/v2/workspaces/${WORKSPACE}/projects`, { slug: PROJECT, name: 'Performance' });
  const { key } = await call(baseUrl, adminKey, 'POST', `/v2/workspaces/${WORKSPACE}/projects/${PROJECT}/api-keys`, { name: 'bench' });

  await call(baseUrl, key, 'POST', '/v2/provider-credentials', {
    name: 'fake',
    type: 'openai',
    baseUrl: upstreamUrl,
    apiKey: 'sk-bench-not-a-real-key',
  });
  for (const [slug, kind] of [
    ['bench-prompt', 'prompt'],
    ['bench-assistant', 'assistant'],
  ]) {
    await call(baseUrl, key, 'POST', '/v2/prompts', { slug, kind });
    await call(baseUrl, key, 'POST', `/v2/prompts/${slug}/versions`, CONTENT);
    await call(baseUrl, key, 'POST', `/v2/prompts/${slug}/deployments`, { environment: 'production' });
  }
  let split;
  try {
    split = await setUpSplit(baseUrl, key);
  } catch (err) {
    // A build from before splits (BENCH_PARLEY_MAIN, bench/ab.js on a baseline) refuses them: (i) is left out.
    split = { skipped: err.message.split('\n')[0].slice(0, 300) };
  }
  let routed;
  try {
    routed = await setUpRouted(baseUrl, key);
  } catch (err) {
    // A build from before routing blocks refuses them: (j) is left out.
    routed = { skipped: err.message.split('\n')[0].slice(0, 300) };
  }
  return {
    key,
    routed,
    promptPath: `/${WORKSPACE}/${PROJECT}/bench-prompt/production`,
    assistantPath: `/${WORKSPACE}/${PROJECT}/bench-assistant/production`,
    split,
  };
}

/**
 * `bench-split`: versions 1 and 2 with bench-prompt's content (two versions of one content hash:
 * a new version is made on every POST, and only their `message` differs, which the invoke path
 * never reads), deployed to `production` as `[{1, 50}, {2, 50}]` sticky by `user`. Answers the
 * path and the callers' `user`s, alternately one the control serves and one version 2 serves:
 * a user's arm is the SHA-256 point of the deployment id and the user (docs/experiments.md), and
 * scenario (i)'s sanity check asks the server which arm served each of the first two.
 */
async function setUpSplit(baseUrl, key, usersPerArm = 16) {
  const slug = 'bench-split';
  await call(baseUrl, key, 'POST', '/v2/prompts', { slug, kind: 'prompt' });
  for (const message of ['control', 'arm (same content)'])
    await call(baseUrl, key, 'POST', `/v2/prompts/${slug}/versions`, { ...CONTENT, message });
  const deployment = await call(baseUrl, key, 'POST', `/v2/prompts/${slug}/deployments`, {
    environment: 'production',
    split: [
      { version: 1, weight: 50 },
      { version: 2, weight: 50 },
    ],
    stickyBy: 'user',
  });
  const point = (user) => createHash('sha256').update(`${deployment.id}\u0000${user}`, 'utf8').digest().readUIntBE(0, 6) / 2 ** 48;
  const arms = [[], []];
  for (let n = 0; arms[0].length < usersPerArm || arms[1].length < usersPerArm; n++) {
    const user = `bench-user-${n}`;
    const arm = arms[point(user) < 0.5 ? 0 : 1];
    if (arm.length < usersPerArm) arm.push(user);
  }
  return {
    path: `/${WORKSPACE}/${PROJECT}/${slug}/production`,
    users: arms[0].flatMap((user, i) => [user, arms[1][i]]),
  };
}

/**
 * `bench-routed`: bench-prompt's content with a routing block, `fake` (the upstream) first and the
 * built-in `local` second; the first is healthy, so every call is served by it in one attempt.
 */
async function setUpRouted(baseUrl, key) {
  const slug = 'bench-routed';
  const { provider, model, ...rest } = CONTENT;
  await call(baseUrl, key, 'POST', '/v2/prompts', { slug, kind: 'prompt' });
  await call(baseUrl, key, 'POST', `/v2/prompts/${slug}/versions`, {
    ...rest,
    routing: {
      strategy: 'priority',
      targets: [
        { provider, model },
        { provider: 'local', model: 'echo' },
      ],
    },
  });
  await call(baseUrl, key, 'POST', `/v2/prompts/${slug}/deployments`, { environment: 'production' });
  return { path: `/${WORKSPACE}/${PROJECT}/${slug}/production`, provider };
}

module.exports = { setUpParley, TEMPLATE };
