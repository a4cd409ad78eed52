import { seedShowcase, SUPPORT_PROMPT } from './showcase';
import { DATASET, DATASET_DESCRIPTION, DATASET_JSONL, FAST_ENOUGH, MENTIONS_EXPECTED } from './showcase-evals';

/** The showcase project with something on every screen: what `seedEverything` answers, for the screens' URLs. */
export interface Showcased {
  threadId: string;
  /** The newest production call of the support prompt. */
  logId: string;
  /** Runs of the dataset on version 1 and on version 2, both completed. */
  runV1: string;
  runV2: string;
  /** The member added by e-mail. */
  memberEmail: string;
}

export const STAGING_PROTECTED = 'staging';

/**
 * The showcase project (showcase.ts) plus what the other screens list: the support questions
 * dataset (showcase-evals.ts) with its two graders and a completed run on each version; a 90/10
 * split in production with feedback on its calls; a member; staging protected, with a rollback to
 * version 1 waiting for approval. Everything through the API, as the screens' users would.
 */
export async function seedEverything(baseUrl: string, key: string, adminKey: string, upstreamUrl: string): Promise<Showcased> {
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = { 'X-API-Key': key }) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { 'Content-Type': 'application/json', ...headers },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : null;
  };
  const { threadId } = await seedShowcase(baseUrl, key, upstreamUrl);

  await call('POST', '/v2/datasets', { name: DATASET, description: DATASET_DESCRIPTION });
  await call('POST', `/v2/datasets/${DATASET}/import`, { format: 'jsonl', content: DATASET_JSONL });
  for (const { name, ...grader } of [MENTIONS_EXPECTED, FAST_ENOUGH]) await call('PUT', `/v2/graders/${name}`, grader);
  const run = async (version: number) =>
    (
      await call('POST', '/v2/evals/runs', {
        name: `support-reply v${version} on the support questions`,
        dataset: DATASET,
        target: { prompt: SUPPORT_PROMPT, version },
        graders: [MENTIONS_EXPECTED.name, FAST_ENOUGH.name],
        concurrency: 4,
      })
    ).id as string;
  const runV1 = await run(1);
  const runV2 = await run(2);
  for (const id of [runV1, runV2]) {
    for (let waited = 0; (await call('GET', `/v2/evals/runs/${id}`)).status !== 'completed'; waited += 100) {
      if (waited > 30_000) throw new Error(`run ${id} did not complete`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  // Production splits 90/10 between version 2 and version 1; the calls so far get a score each.
  await call('POST', `/v2/prompts/${SUPPORT_PROMPT}/deployments`, {
    environment: 'production',
    split: [
      { version: 2, weight: 90 },
      { version: 1, weight: 10 },
    ],
    stickyBy: 'thread',
  });
  const logs = (await call('GET', `/v2/logs?slug=${SUPPORT_PROMPT}&environment=production&limit=10`)).data as { id: string }[];
  for (const [index, log] of logs.entries()) await call('POST', '/v2/feedback', { logId: log.id, name: 'helpful', value: index !== 1 });

  const memberEmail = 'maya.chen@larkspur.example';
  await call('PUT', `/v2/workspaces/default/projects/default/members/${encodeURIComponent(memberEmail)}`, { role: 'deployer' });

  // Staging needs a second person's approval (set by the admin key in the project); a rollback there waits.
  await call(
    'PUT',
    `/v2/environments/${STAGING_PROTECTED}/protection`,
    { requireApproval: true, barKeys: false },
    { 'X-API-Key': adminKey, 'X-Parley-Project': 'default/default' },
  );
  await call('POST', `/v2/prompts/${SUPPORT_PROMPT}/deployments`, { environment: STAGING_PROTECTED, version: 1 });
  return { threadId, logId: logs[0].id, runV1, runV2, memberEmail };
}
