import type { AddressInfo } from 'node:net';

import { Langtail } from 'langtail';
import { getOpenAIBody } from 'langtail/getOpenAIBody';

import { createProject, TestProject } from './support/factories';
import { deployedPrompt, versionBody } from './support/registry-factories';
import { createTestApp, TestApp } from './support/test-app';

/**
 * The real langtail SDK (0.16), changed only in its base URL, against Parley (issue 11 item 6).
 * Calls whose response schema the spec contradicts are not driven (README: langtail SDK).
 */
describe('langtail SDK against Parley', () => {
  let t: TestApp;
  let p: TestProject;
  let baseURL: string;
  const prompt = 'lt-prompt';
  const assistant = 'lt-assistant';

  beforeAll(async () => {
    t = await createTestApp();
    await t.app.listen(0, '127.0.0.1');
    baseURL = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    p = await createProject(t);
    await deployedPrompt(
      t,
      p,
      prompt,
      'prompt',
      versionBody('Summarize for {{audience}}.', {
        variables: { audience: 'engineers' },
        parameters: { temperature: 0.3, max_tokens: 50 },
      }),
    );
    await deployedPrompt(t, p, assistant, 'assistant', versionBody('You help {{company}} customers.'));
  });
  afterAll(() => t.close());

  const sdk = () => new Langtail({ apiKey: p.key, baseURL });

  it("prompts.get returns a PlaygroundState that the SDK's own getOpenAIBody turns into a request", async () => {
    const config = await sdk().prompts.get({ prompt, environment: 'production' });
    expect(config.state).toMatchObject({
      type: 'chat',
      template: [{ role: 'system', content: 'Summarize for {{audience}}.' }],
      args: { model: 'echo', temperature: 0.3, max_tokens: 50 },
    });
    expect(config.chatInput).toEqual({ audience: 'engineers' });
    expect(JSON.stringify(config)).not.toMatch(/apiKey|baseUrl/);
    const body = getOpenAIBody(config, { variables: { audience: 'lawyers' }, messages: [{ role: 'user', content: 'hi' }] });
    expect(body).toMatchObject({
      model: 'echo',
      temperature: 0.3,
      messages: [
        { role: 'system', content: 'Summarize for lawyers.' },
        { role: 'user', content: 'hi' },
      ],
    });
  });

  it('prompts.get with a version, and a clear failure for what is not deployed', async () => {
    const pinned = await sdk().prompts.get({ prompt, environment: 'production', version: '1' });
    expect(pinned.state.args.model).toBe('echo');
    await expect(sdk().prompts.get({ prompt: 'nope', environment: 'production' })).rejects.toThrow(/404 .*Prompt deployment not found/);
    const otherKey = (await createProject(t)).key;
    await expect(new Langtail({ apiKey: otherKey, baseURL }).prompts.get({ prompt, environment: 'production' })).rejects.toThrow(/404/);
  });

  it('prompts.get with workspace and project set (GET /{workspace}/{project}/{prompt}/{environment}) answers as /project-prompt does', async () => {
    const scoped = new Langtail({ apiKey: p.key, baseURL, organization: p.workspace, project: p.project });
    const viaPath = await scoped.prompts.get({ prompt, environment: 'production' });
    expect(viaPath).toEqual(await sdk().prompts.get({ prompt, environment: 'production' }));
    expect((await scoped.prompts.get({ prompt, environment: 'production', version: '1' })).state.args.model).toBe('echo');
    await expect(scoped.prompts.get({ prompt: 'nope', environment: 'production' })).rejects.toThrow(/404 .*Prompt deployment not found/);
    // Another workspace/project than the key's: the 404 of an unknown route.
    const other = new Langtail({ apiKey: p.key, baseURL, organization: 'elsewhere', project: p.project });
    await expect(other.prompts.get({ prompt, environment: 'production' })).rejects.toThrow(/404 .*Cannot GET/);
    // The four-segment GET shadows no fixed route registered before it.
    const as = { 'X-API-Key': p.key };
    await t.http().get('/v1/models/local/echo').set(as).expect(200);
    const versions = await t.http().get(`/v2/prompts/${prompt}/versions`).set(as).expect(200);
    expect(versions.body.data.length).toBeGreaterThan(0);
    const conversation = await t.http().post('/v1/conversations').set(as).send({}).expect(200);
    await t.http().get(`/v1/conversations/${conversation.body.id}/items`).set(as).expect(200);
  });

  it('prompts.listDeployments lists what each environment runs', async () => {
    const deployments = await sdk().prompts.listDeployments();
    expect(deployments.map((d) => d.promptSlug).sort()).toEqual([assistant, prompt]);
    for (const d of deployments) {
      expect(d).toMatchObject({ environment: 'production', version: '1' });
      expect(Number.isNaN(Date.parse(d.deployedAt))).toBe(false);
    }
  });

  it("prompts.invoke, on the key's project path and on the workspace/project path, with metadata and doNotRecord", async () => {
    const viaKey = await sdk().prompts.invoke({
      prompt,
      environment: 'production',
      variables: { audience: 'ops' },
      messages: [{ role: 'user', content: 'Hello via key' }],
      metadata: { team: 'sdk' },
    });
    expect(viaKey.choices[0].message.content).toBe('Hello via key');
    const scoped = new Langtail({ apiKey: p.key, baseURL, organization: p.workspace, project: p.project });
    const viaPath = await scoped.prompts.invoke({ prompt, messages: [{ role: 'user', content: 'Hello via path' }], doNotRecord: true });
    expect(viaPath.choices[0].message.content).toBe('Hello via path');
    const logs = await t.http().get(`/v2/logs?slug=${prompt}&limit=5`).set('X-API-Key', p.key).expect(200);
    // The spec's log shape carries metadata as a JSON string.
    const byUrl = (url: string) => logs.body.data.find((l: { url: string }) => l.url.startsWith(url));
    expect(JSON.parse(byUrl('/project-prompt/').metadata)).toEqual({ team: 'sdk' });
    expect(byUrl(`/${p.workspace}/`).doNotRecord).toBe(true);
  });

  it('prompts.invoke with stream: true yields chat.completion.chunk events', async () => {
    const stream = await sdk().prompts.invoke({
      prompt,
      environment: 'production',
      stream: true,
      messages: [{ role: 'user', content: 'streamed words' }],
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('streamed words');
  });

  it('assistants.invoke reports the new thread through onThreadId and continues it', async () => {
    const threadIds: string[] = [];
    const first = await sdk().assistants.invoke(
      { assistant, environment: 'production', messages: [{ role: 'user', content: 'first turn' }] },
      { onThreadId: (id) => threadIds.push(id) },
    );
    expect(first.choices[0].message.content).toBe('first turn');
    expect(threadIds).toHaveLength(1);
    const again: string[] = [];
    const second = await sdk().assistants.invoke(
      { assistant, environment: 'production', threadId: threadIds[0], messages: [{ role: 'user', content: 'second turn' }] } as Parameters<
        Langtail['assistants']['invoke']
      >[0],
      { onThreadId: (id) => again.push(id) },
    );
    expect('choices' in second && second.choices[0].message.content).toBe('second turn');
    expect(again).toEqual(threadIds);
    const messages = await t.http().get(`/v2/threads/${threadIds[0]}/messages`).set('X-API-Key', p.key).expect(200);
    expect(messages.body.data.map((m: { content: { content: string }[] }) => m.content[0].content)).toEqual([
      'first turn',
      'first turn',
      'second turn',
      'second turn',
    ]);
  });

  // Not driven, because the spec contradicts the SDK's schema: threads.list/retrieve/update (the
  // spec's createdAt is Unix seconds there, the SDK wants a string) and messages.list/retrieve/update
  // (the spec's message content is an array of messages, the SDK wants one object).
  it('threads.create and delete, messages.del', async () => {
    const threads = sdk().threads;
    const thread = await threads.create({ metadata: { source: 'langtail' } });
    expect(thread.metadata).toEqual({ source: 'langtail' });
    const added = await t
      .http()
      .post(`/v2/threads/${thread.id}/messages`)
      .set('X-API-Key', p.key)
      .send({ message: { role: 'user', content: 'hi' } })
      .expect(200);
    expect(await threads.messages.del(thread.id, added.body.id)).toMatchObject({ id: added.body.id, deleted: true });
    expect(await threads.del(thread.id)).toMatchObject({ id: thread.id, deleted: true });
    await t.http().get(`/v2/threads/${thread.id}`).set('X-API-Key', p.key).expect(404);
  });
});
