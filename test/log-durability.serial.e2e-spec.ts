import * as http from 'node:http';

import { useCrashFixture } from './support/crash-fixture';
import { createProject, TestProject } from './support/factories';
import { deploy, invokePath } from './support/invoke-factories';

/** POST with a JSON body; resolves with the status and the thread header once the whole answer arrived. */
function invoke(url: string, key: string, body: object): Promise<{ status: number; threadId?: string }> {
  return new Promise((resolve) => {
    const req = http.request(
      url,
      { method: 'POST', headers: { 'X-API-Key': key, 'Content-Type': 'application/json' }, agent: false },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, threadId: res.headers['x-parley-thread-id'] as string | undefined }));
        res.on('error', () => resolve({ status: 0 }));
      },
    );
    req.on('error', () => resolve({ status: 0 }));
    req.end(JSON.stringify(body));
  });
}

/**
 * A call answered 200 has its log committed: kill -9 the real server right after the first answers
 * of a burst of concurrent prompt and assistant calls, restart on the same database, and find every
 * answered call's log (and an assistant's turns). Needs `npm run build` first (CI builds first).
 */
describe('request logs survive kill -9 of the server', () => {
  const crash = useCrashFixture();

  it('keeps the log of every call answered before the kill', async () => {
    const remote = crash.remote();
    const server = crash.server();
    const p: TestProject = await createProject(remote);
    await deploy(remote, p, { slug: 'durable-prompt' });
    await deploy(remote, p, { slug: 'durable-assistant', kind: 'assistant' });

    const answered: { n: number; threadId?: string }[] = [];
    let killed = false;
    const calls = Array.from({ length: 40 }, (_, n) => {
      const assistant = n % 2 === 1;
      const body = { metadata: { n }, ...(assistant ? { messages: [{ role: 'user', content: `turn ${n}` }] } : {}) };
      return invoke(`${server.url}${invokePath(p, assistant ? 'durable-assistant' : 'durable-prompt')}`, p.key, body).then((res) => {
        if (res.status !== 200) return;
        answered.push({ n, threadId: res.threadId });
        // Immediately, in the callback that saw the answer: no chance for a late write.
        if (answered.length >= 5 && !killed) {
          killed = true;
          crash.kill();
        }
      });
    });
    await Promise.all(calls);
    if (!killed) crash.kill();
    expect(answered.length).toBeGreaterThanOrEqual(5);

    const after = await crash.reopen();
    for (const { n, threadId } of answered) {
      const logs = await after.dataSource.query(
        `SELECT status, thread_id FROM request_logs WHERE project_id = $1 AND metadata @> $2::jsonb`,
        [p.projectId, JSON.stringify({ n })],
      );
      expect({ n, logs }).toEqual({ n, logs: [{ status: 200, thread_id: threadId ?? null }] });
      if (threadId) {
        const turns = await after.dataSource.query(
          `SELECT seq FROM thread_messages WHERE project_id = $1 AND thread_id = $2 ORDER BY seq`,
          [p.projectId, threadId],
        );
        expect(turns.map((t: { seq: number }) => Number(t.seq))).toEqual([1, 2]);
      }
    }
    // Through the API too: each answered call's log is listed.
    const listed = await after.http().get('/v2/logs?limit=100').set('X-API-Key', p.key).expect(200);
    const loggedNs = listed.body.data.map((l: { metadata: string }) => JSON.parse(l.metadata).n);
    for (const { n } of answered) expect(loggedNs).toContain(n);
  }, 180_000);
});
