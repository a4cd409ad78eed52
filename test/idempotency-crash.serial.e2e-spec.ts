import request from 'supertest';

import { FakeUpstream, openaiChunks, openaiStream, startFakeOpenAIUpstream } from './fakes/fake-openai-upstream';
import { createProject, TestProject } from './support/factories';
import { FreshDatabase, freshDatabase } from './support/fresh-database';
import { addProviderCredential, deploy, invokePath, sleep } from './support/invoke-factories';
import { restartServer, ServerProcess, startServer } from './support/server-process';
import { TestApp } from './support/test-app';

/**
 * Issue 13, "duplicate turns": Parley killed with `kill -9` after a reply was stored, before the
 * client saw the end of its stream; the client retries with the same Idempotency-Key. The retry
 * must replay the stored reply, and the thread must hold the turn once.
 */
describe('idempotency across a crash', () => {
  let fresh: FreshDatabase;
  let fake: FakeUpstream;
  let server: ServerProcess | undefined;

  beforeAll(async () => {
    fake = await startFakeOpenAIUpstream();
    fresh = await freshDatabase({ migrated: true });
  }, 120_000);
  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await fake.close();
    await fresh.drop();
  });

  it('replays the stored turn after kill -9 instead of appending it again', async () => {
    server = await startServer(fresh.env as Record<string, string>);
    const remote = { http: () => request(server!.url) } as unknown as TestApp;
    const p: TestProject = await createProject(remote);
    await addProviderCredential(remote, p, { name: 'fake', type: 'openai', baseUrl: fake.url });
    await deploy(remote, p, { slug: 'crashy', kind: 'assistant', provider: 'fake', model: 'gpt-fake' });
    const thread = await remote.http().post('/v2/threads').set('X-API-Key', p.key).send({}).expect(200);
    const threadId: string = thread.body.id;
    const body = JSON.stringify({ threadId, stream: true, messages: [{ role: 'user', content: 'store me once' }] });
    const headers = { 'X-API-Key': p.key, 'Content-Type': 'application/json', 'Idempotency-Key': 'crash-1' };

    // The reply streams slowly; as soon as its turns are stored, the server dies.
    fake.setNext(openaiStream(openaiChunks({ content: ['store', ' me', ' once'] }), { delayMs: 150 }));
    const first = fetch(`${server.url}${invokePath(p, 'crashy')}`, { method: 'POST', headers, body })
      .then((res) => res.text())
      .catch(() => 'cut');
    const stored = async () => (await remote.http().get(`/v2/threads/${threadId}/messages`).set('X-API-Key', p.key)).body.data?.length ?? 0;
    const deadline = Date.now() + 30_000;
    while ((await stored()) < 2) {
      if (Date.now() > deadline) throw new Error('the reply was never stored');
      await sleep(5);
    }
    server.child.kill('SIGKILL');
    await server.exited;
    await first;

    server = await restartServer(fresh.env as Record<string, string>);
    const calls = fake.requests.length;
    const retry = await fetch(`${server.url}${invokePath(p, 'crashy')}`, { method: 'POST', headers, body });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const events = (await retry.text()).split('\n\n').filter(Boolean);
    expect(events.at(-1)).toBe('data: [DONE]');
    const text = events
      .filter((e) => e.startsWith('data: {'))
      .map((e) => JSON.parse(e.slice(6)).choices[0]?.delta?.content ?? '')
      .join('');
    expect(text).toBe('store me once');
    expect(fake.requests.length).toBe(calls);
    const after = { http: () => request(server!.url) } as unknown as TestApp;
    const messages = await after.http().get(`/v2/threads/${threadId}/messages`).set('X-API-Key', p.key).expect(200);
    expect(messages.body.data.map((m: { content: { role: string }[] }) => m.content[0].role)).toEqual(['user', 'assistant']);
  }, 180_000);
});
