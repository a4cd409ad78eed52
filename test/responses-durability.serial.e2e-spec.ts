import * as http from 'node:http';

import { useCrashFixture } from './support/crash-fixture';
import { createProject, TestProject } from './support/factories';

/** POST JSON with a bearer key; resolves with the status and parsed body once the whole answer arrived. */
function post(url: string, key: string, body: object): Promise<{ status: number; body?: { id?: string } }> {
  return new Promise((resolve) => {
    const req = http.request(
      url,
      { method: 'POST', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' }, agent: false },
      (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => {
          try {
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) });
          } catch {
            resolve({ status: res.statusCode ?? 0 });
          }
        });
        res.on('error', () => resolve({ status: 0 }));
      },
    );
    req.on('error', () => resolve({ status: 0 }));
    req.end(JSON.stringify(body));
  });
}

/**
 * A /v1/responses call on a conversation answered 200 has its turn and its log committed: kill -9
 * the real server right after the first answers of a burst of concurrent calls (one conversation
 * each), restart on the same database, and find each answered call's input and output items, once,
 * and its log. Needs `npm run build` first (npm test builds when stale).
 */
describe('/v1/responses on a conversation survives kill -9 of the server', () => {
  const crash = useCrashFixture();

  it('keeps the turn and the log of every response answered before the kill', async () => {
    const remote = crash.remote();
    const server = crash.server();
    const p: TestProject = await createProject(remote);
    const conversations: string[] = [];
    for (let n = 0; n < 30; n += 1) {
      const created = await post(`${server.url}/v1/conversations`, p.key, { metadata: { n: String(n) } });
      expect(created.status).toBe(200);
      conversations.push(created.body!.id!);
    }

    const answered: { n: number; conversation: string; responseId: string }[] = [];
    let killed = false;
    await Promise.all(
      conversations.map((conversation, n) =>
        post(`${server.url}/v1/responses`, p.key, { model: 'local/echo', input: `turn ${n}`, conversation }).then((res) => {
          if (res.status !== 200) return;
          answered.push({ n, conversation, responseId: res.body!.id! });
          // In the callback that saw the answer: no chance for a late write.
          if (answered.length >= 5 && !killed) {
            killed = true;
            crash.kill();
          }
        }),
      ),
    );
    if (!killed) crash.kill();
    expect(answered.length).toBeGreaterThanOrEqual(5);

    const after = await crash.reopen();
    for (const { n, conversation, responseId } of answered) {
      const items = await after
        .http()
        .get(`/v1/conversations/${conversation}/items?order=asc`)
        .set('Authorization', `Bearer ${p.key}`)
        .expect(200);
      const texts = items.body.data.map((item: { role: string; content: { text: string }[] }) => `${item.role}: ${item.content[0].text}`);
      expect({ n, texts }).toEqual({ n, texts: [`user: turn ${n}`, `assistant: turn ${n}`] });
      const stored = await after.http().get(`/v1/responses/${responseId}`).set('Authorization', `Bearer ${p.key}`).expect(200);
      expect(stored.body).toMatchObject({ id: responseId, status: 'completed' });
      const logs = await after.dataSource.query('SELECT status FROM request_logs WHERE project_id = $1 AND thread_id = $2', [
        p.projectId,
        conversation,
      ]);
      expect({ n, logs }).toEqual({ n, logs: [{ status: 200 }] });
    }
  }, 180_000);
});
