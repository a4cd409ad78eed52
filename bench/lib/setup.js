'use strict';
/**
 * Prepares a fresh Parley through its REST API, as an operator would: workspace and project (admin
 * key), a project key, an `openai` provider credential pointing at the fake upstream, and a prompt
 * and an assistant deployed to `production` on it.
 */

const WORKSPACE = 'bench';
const PROJECT = 'perf';

/** The system prompt both use: one declared variable with a default, one the request sends. */
const TEMPLATE = [{ role: 'system', content: 'You are a concise assistant for {{audience}}. Answer in {{language}}.' }];

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
    await call(baseUrl, key, 'POST', `/v2/prompts/${slug}/versions`, {
      template: TEMPLATE,
      provider: 'fake',
      model: 'gpt-bench',
      parameters: { temperature: 0.2, max_tokens: 64 },
      variables: { audience: 'engineers' },
    });
    await call(baseUrl, key, 'POST', `/v2/prompts/${slug}/deployments`, { environment: 'production' });
  }
  return {
    key,
    promptPath: `/${WORKSPACE}/${PROJECT}/bench-prompt/production`,
    assistantPath: `/${WORKSPACE}/${PROJECT}/bench-assistant/production`,
  };
}

module.exports = { setUpParley, TEMPLATE };
