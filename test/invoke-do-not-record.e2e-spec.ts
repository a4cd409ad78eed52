import { randomBytes } from 'node:crypto';

import { FakeUpstream, openaiError, startFakeOpenAIUpstream } from './fakes/fake-openai-upstream';
import { createProject, TestProject } from './support/factories';
import { Client, client } from './support/http';
import { addProviderCredential, deploy, INVOKE_APP_ENV, invokePath, listen, sleep, threadMessageRows } from './support/invoke-factories';
import { captureOutput } from './support/output-capture';
import { createTestApp, TestApp } from './support/test-app';

/**
 * DESIGN §4.9: with doNotRecord (body or header), no variable, message, template or reply text is
 * kept in the request log or printed in application logs; the thread still keeps the conversation.
 */
describe('invoke: doNotRecord', () => {
  let t: TestApp;
  let p: TestProject;
  let api: Client;
  let baseUrl: string;
  let fake: FakeUpstream;

  const secret = () => `SECRET-${randomBytes(8).toString('hex')}`;
  /** Every stored request log row of the database, as text. */
  const allLogText = async () => JSON.stringify(await t.dataSource.query('SELECT row_to_json(l)::text AS row FROM request_logs l'));
  const allThreadText = async () => JSON.stringify(await t.dataSource.query('SELECT row_to_json(th)::text AS row FROM threads th'));

  /** Runs `fn` with the app's output kept out of the test report (set-up and shutdown lines). */
  async function quietly(fn: () => Promise<void>) {
    const output = captureOutput();
    try {
      await fn();
    } finally {
      output.restore();
    }
  }

  beforeAll(() =>
    quietly(async () => {
      fake = await startFakeOpenAIUpstream();
      // The most verbose level: whatever Parley would print at all, it prints here.
      t = await createTestApp({ ...INVOKE_APP_ENV, LOG_LEVEL: 'trace' });
      baseUrl = await listen(t);
      p = await createProject(t);
      api = client(t, p.key);
      await addProviderCredential(t, p, { name: 'upstream', type: 'openai', baseUrl: fake.url, apiKey: 'sk-d' });
      const template = [{ role: 'system', content: 'About {{topic}}.' }];
      await deploy(t, p, { slug: 'prompt', template });
      await deploy(t, p, { slug: 'assistant', kind: 'assistant', template });
      await deploy(t, p, { slug: 'remote', kind: 'assistant', provider: 'upstream', model: 'gpt-d', template });
    }),
  );
  afterAll(() =>
    quietly(async () => {
      await t.close();
      await fake.close();
    }),
  );

  it('records no secret text anywhere in request logs or application output, in every form of the flag', async () => {
    const secrets = { body: secret(), header: secret(), langtail: secret(), stream: secret(), failure: secret(), template: secret() };
    const output = captureOutput();
    let threadId: string;
    try {
      const prompt = await api.post(invokePath(p, 'prompt'), {
        doNotRecord: true,
        variables: { topic: secrets.body },
        messages: [{ role: 'user', content: `say ${secrets.body}` }],
      });
      expect(prompt.status).toBe(200);
      expect(prompt.body.choices[0].message.content).toBe(`say ${secrets.body}`);

      const created = await api
        .post(invokePath(p, 'assistant'), {
          variables: { topic: secrets.header },
          messages: [{ role: 'user', content: `say ${secrets.header}` }],
        })
        .set('x-parley-do-not-record', 'true');
      expect(created.status).toBe(200);
      threadId = created.headers['x-parley-thread-id'];

      const continued = await api
        .post(invokePath(p, 'assistant'), {
          threadId,
          template: [{ role: 'system', content: `${secrets.template} {{topic}}` }],
          messages: [{ role: 'user', content: `say ${secrets.langtail}` }],
        })
        .set('x-langtail-do-not-record', 'true');
      expect(continued.body.choices[0].message.content).toBe(`say ${secrets.langtail}`);

      const streamed = await fetch(`${baseUrl}${invokePath(p, 'remote')}`, {
        method: 'POST',
        headers: { 'X-API-Key': p.key, 'x-parley-do-not-record': 'true' },
        body: JSON.stringify({
          stream: true,
          variables: { topic: secrets.stream },
          messages: [{ role: 'user', content: `say ${secrets.stream}` }],
        }),
      });
      expect(await streamed.text()).toContain(secrets.stream);

      // An upstream error that quotes the prompt is the caller's to see, not the log's to keep.
      fake.setNext(openaiError(400, `bad prompt: ${secrets.failure}`));
      const failed = await api.post(invokePath(p, 'remote'), { doNotRecord: true, messages: [{ role: 'user', content: secrets.failure }] });
      expect(failed.status).toBe(400);
      expect(failed.body.message).toContain(secrets.failure);

      // Give asynchronous log writes time to land.
      await sleep(200);
    } finally {
      output.restore();
    }
    const printed = output.text();
    // The capture works: pino's request lines of these very calls are in it.
    expect(printed).toContain(invokePath(p, 'prompt'));
    expect(printed).toContain(invokePath(p, 'remote'));
    expect(printed).toMatch(/"msg":"request completed"/);

    const logs = await allLogText();
    const threads = await allThreadText();
    for (const value of Object.values(secrets)) {
      expect(printed).not.toContain(value);
      expect(logs).not.toContain(value);
      expect(threads).not.toContain(value);
    }
    // Nor through the API that reads the logs.
    const reads = captureOutput();
    let listed, message, thread, rows;
    try {
      listed = await api.get('/v2/logs?limit=100').expect(200);
      rows = await threadMessageRows(t, p.projectId, threadId!);
      message = await api.get(`/v2/threads/${threadId!}/messages/${rows[1].id}`).expect(200);
      thread = await api.get(`/v2/threads/${threadId!}`).expect(200);
      await sleep(50);
    } finally {
      reads.restore();
    }
    for (const value of Object.values(secrets)) expect(reads.text()).not.toContain(value);
    expect(listed.body.data).toHaveLength(5);
    expect(listed.body.data.every((l: { doNotRecord: boolean }) => l.doNotRecord)).toBe(true);
    for (const value of Object.values(secrets)) expect(JSON.stringify(listed.body)).not.toContain(value);
    const logged = listed.body.data.find((l: { status: number }) => l.status === 400);
    expect(logged.error).toBe('openai upstream answered 400: [not recorded]');

    // The conversation is the user's data: the thread keeps it, and its requestLog is empty.
    expect(rows.map((r) => r.content)).toEqual([
      [{ role: 'user', content: `say ${secrets.header}` }],
      [{ role: 'assistant', content: `say ${secrets.header}` }],
      [{ role: 'user', content: `say ${secrets.langtail}` }],
      [{ role: 'assistant', content: `say ${secrets.langtail}` }],
    ]);
    expect(message.body.requestLog).toEqual({ id: rows[1].request_log_id, createdAt: expect.any(String), request: {}, response: {} });
    expect(thread.body.createLog).toMatchObject({ doNotRecord: true, variables: null, requestData: null });
  });

  it('records the same call in full without the flag (the checks above can see a leak)', async () => {
    const visible = secret();
    const output = captureOutput();
    try {
      await api
        .post(invokePath(p, 'prompt'), { variables: { topic: visible }, messages: [{ role: 'user', content: visible }] })
        .expect(200);
      await sleep(100);
    } finally {
      output.restore();
    }
    expect(await allLogText()).toContain(visible);
    // Bodies are never application log material, recorded or not.
    expect(output.text()).not.toContain(visible);
    expect(output.text()).toContain(invokePath(p, 'prompt'));
  });
});
