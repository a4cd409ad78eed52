import OpenAI from 'openai';

import { FakeUpstream, openaiCompletion, openaiJson, startFakeOpenAIUpstream } from './fakes/fake-openai-upstream';
import { createProject, TestProject } from './support/factories';
import { Client, client } from './support/http';
import {
  addProviderCredential,
  deploy,
  expectCompletion,
  INVOKE_APP_ENV,
  invokePath,
  listen,
  openaiClient,
  requestLogRows,
} from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

const TOOL = {
  type: 'function',
  function: { name: 'lookup', description: 'find a record', parameters: { type: 'object', properties: { q: { type: 'string' } } } },
};

/** Endpoint 2, Invoke Deployed Prompt: the completion answered, and what reaches the provider. */
describe('invoke: deployed prompts', () => {
  let t: TestApp;
  let p: TestProject;
  let api: Client;
  let baseUrl: string;
  let fake: FakeUpstream;

  const lastUpstreamBody = () => fake.requests[fake.requests.length - 1].body;

  beforeAll(async () => {
    fake = await startFakeOpenAIUpstream();
    t = await createTestApp(INVOKE_APP_ENV);
    baseUrl = await listen(t);
    p = await createProject(t);
    api = client(t, p.key);
    await addProviderCredential(t, p, { name: 'upstream', type: 'openai', baseUrl: fake.url, apiKey: 'sk-upstream-key' });
    await deploy(t, p, { slug: 'echo', template: [{ role: 'system', content: 'Say it back.' }] });
    await deploy(t, p, {
      slug: 'summarize',
      provider: 'upstream',
      model: 'gpt-stored',
      template: [
        { role: 'system', content: 'Summarize for {{audience}} in {{lang}}.' },
        { role: 'user', content: 'Text: {{text}}' },
      ],
      variables: { lang: 'English', audience: 'everyone' },
      parameters: {
        temperature: 0.2,
        top_p: 0.5,
        max_tokens: 50,
        presence_penalty: 0.1,
        frequency_penalty: 0.2,
        seed: 1,
        stop: ['END'],
        tool_choice: 'auto',
      },
      tools: [TOOL],
    });
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  it("answers exactly the spec's completion fields (plus usage), without a thread header", async () => {
    const res = await api.post(invokePath(p, 'echo'), { messages: [{ role: 'user', content: 'hello there' }] }).expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expectCompletion(res.body, 'echo', { content: 'hello there' });
    expect(res.body.id).toMatch(/^chatcmpl-/);
    expect(Math.abs(res.body.created - Date.now() / 1000)).toBeLessThan(60);
    expect(res.headers['x-parley-thread-id']).toBeUndefined();
    // The local provider counts words: 3 of the template + 2 of the message, 2 of the answer.
    expect(res.body.usage).toEqual({ prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 });
  });

  it('is read by the official openai SDK as a ChatCompletion', async () => {
    const sdk = openaiClient(baseUrl, p, 'echo');
    const { data, response } = await sdk.chat.completions
      .create({ model: 'echo', messages: [{ role: 'user', content: 'typed answer' }] })
      .withResponse();
    const completion: OpenAI.ChatCompletion = data;
    expect(response.status).toBe(200);
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0].message).toEqual({ role: 'assistant', content: 'typed answer' });
    expect(completion.choices[0].finish_reason).toBe('stop');
    expect(completion.usage?.completion_tokens).toBe(2);
  });

  it("sends the stored settings, rendered template and declared defaults to the provider; the upstream's extras are dropped", async () => {
    fake.setNext(openaiJson({ ...openaiCompletion({ content: 'short summary', model: 'gpt-stored-2024' }), system_fingerprint: 'fp_x' }));
    const res = await api.post(invokePath(p, 'summarize'), { variables: { text: 'a long story' } }).expect(200);
    expectCompletion(res.body, 'gpt-stored-2024', { content: 'short summary' });
    expect(res.body.created).toBe(1_700_000_000);
    expect(lastUpstreamBody()).toEqual({
      model: 'gpt-stored',
      messages: [
        { role: 'system', content: 'Summarize for everyone in English.' },
        { role: 'user', content: 'Text: a long story' },
      ],
      temperature: 0.2,
      top_p: 0.5,
      max_tokens: 50,
      presence_penalty: 0.1,
      frequency_penalty: 0.2,
      seed: 1,
      stop: ['END'],
      tools: [TOOL],
      tool_choice: 'auto',
    });
    expect(fake.requests[fake.requests.length - 1].headers.authorization).toBe('Bearer sk-upstream-key');
    expect(fake.requests[fake.requests.length - 1].path).toBe('/v1/chat/completions');
  });

  it('sends every request override, and the messages after the template; metadata never reaches the provider', async () => {
    await api
      .post(invokePath(p, 'summarize'), {
        variables: { audience: 'kids', text: 'the fox' },
        messages: [
          { role: 'user', content: 'Also in one line.' },
          { role: 'assistant', content: 'Sure.' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'And this image' },
              { type: 'image_url', image_url: { url: 'https://img.invalid/a.png' } },
            ],
          },
        ],
        model: 'gpt-override',
        temperature: 1.3,
        top_p: 0.9,
        max_tokens: 77,
        presence_penalty: -0.5,
        frequency_penalty: 1.5,
        seed: 42,
        tool_choice: { type: 'function', function: { name: 'lookup' } },
        response_format: { type: 'json_object' },
        user: 'end-user-7',
        metadata: { customer: 'c_42', attempt: 2 },
      })
      .set('x-parley-metadata-source', 'header')
      .expect(200);
    expect(lastUpstreamBody()).toEqual({
      model: 'gpt-override',
      messages: [
        { role: 'system', content: 'Summarize for kids in English.' },
        { role: 'user', content: 'Text: the fox' },
        { role: 'user', content: 'Also in one line.' },
        { role: 'assistant', content: 'Sure.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'And this image' },
            { type: 'image_url', image_url: { url: 'https://img.invalid/a.png', detail: 'auto' } },
          ],
        },
      ],
      temperature: 1.3,
      top_p: 0.9,
      max_tokens: 77,
      presence_penalty: -0.5,
      frequency_penalty: 1.5,
      seed: 42,
      stop: ['END'],
      tools: [TOOL],
      tool_choice: { type: 'function', function: { name: 'lookup' } },
      response_format: { type: 'json_object' },
      user: 'end-user-7',
    });
    expect(fake.requests[fake.requests.length - 1].rawBody).not.toContain('c_42');
    const log = (await requestLogRows(t, p.projectId)).pop()!;
    expect(log.metadata).toEqual({ customer: 'c_42', attempt: 2, source: 'header' });
    expect(log.provider_request).toEqual(lastUpstreamBody());
    expect(log.parameters).toMatchObject({
      temperature: 1.3,
      max_tokens: 77,
      seed: 42,
      stop: ['END'],
      response_format: { type: 'json_object' },
    });
    expect(log.model).toBe('gpt-override');
  });

  it("replaces the stored template with the body's, rendered with the same variables and defaults", async () => {
    await api
      .post(invokePath(p, 'summarize'), {
        template: [{ role: 'system', content: 'New rules for {{audience}} ({{lang}}), {{style}}.' }],
        variables: { style: 'bullet points' },
        messages: [{ role: 'user', content: 'go' }],
      })
      .expect(200);
    expect(lastUpstreamBody().messages).toEqual([
      { role: 'system', content: 'New rules for everyone (English), bullet points.' },
      { role: 'user', content: 'go' },
    ]);
  });

  it('treats variable values as data: a value that looks like a template is sent as it is', async () => {
    await api
      .post(invokePath(p, 'summarize'), { variables: { text: '{{audience}} {{#each x}}y{{/each}}', audience: '{{lang}}' } })
      .expect(200);
    expect(lastUpstreamBody().messages).toEqual([
      { role: 'system', content: 'Summarize for {{lang}} in English.' },
      { role: 'user', content: 'Text: {{audience}} {{#each x}}y{{/each}}' },
    ]);
  });

  it('renders a variable given neither in the request nor as a default as empty', async () => {
    await api.post(invokePath(p, 'summarize'), {}).expect(200);
    expect(lastUpstreamBody().messages[1]).toEqual({ role: 'user', content: 'Text: ' });
  });

  it('keeps a tool-call reply of the provider, with finish_reason tool_calls', async () => {
    fake.setNext(openaiJson(openaiCompletion({ toolCalls: [{ id: 'call_1', name: 'lookup', arguments: '{"q":"fox"}' }] })));
    const res = await api.post(invokePath(p, 'summarize'), { variables: { text: 'x' } }).expect(200);
    expectCompletion(
      res.body,
      'gpt-fake',
      { content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"fox"}' } }] },
      'tool_calls',
    );
  });

  it('reads doNotRecord and metadata from the x-parley-* and x-langtail-* headers; the body wins per key', async () => {
    const q = await createProject(t);
    await deploy(t, q, { slug: 'h' });
    const path = invokePath(q, 'h');
    await t
      .http()
      .post(path)
      .set('X-API-Key', q.key)
      .set('x-parley-metadata-Team', 'red')
      .set('x-langtail-metadata-run', '7')
      .send({ metadata: { run: 'body' } })
      .expect(200);
    await t
      .http()
      .post(path)
      .set('X-API-Key', q.key)
      .set('x-parley-do-not-record', 'true')
      .send({ messages: [{ role: 'user', content: 'a' }] })
      .expect(200);
    await t
      .http()
      .post(path)
      .set('X-API-Key', q.key)
      .set('x-langtail-do-not-record', 'true')
      .set('x-langtail-metadata-origin', 'sdk')
      .send({})
      .expect(200);
    await t.http().post(path).set('X-API-Key', q.key).set('x-parley-do-not-record', 'false').send({ doNotRecord: true }).expect(200);
    await t.http().post(path).set('X-API-Key', q.key).set('x-parley-do-not-record', 'false').send({}).expect(200);
    const logs = await requestLogRows(t, q.projectId);
    expect(logs.map((l) => [l.do_not_record, l.metadata])).toEqual([
      [false, { team: 'red', run: 'body' }],
      [true, {}],
      [true, { origin: 'sdk' }],
      [true, {}],
      [false, {}],
    ]);
    expect(logs.map((l) => l.request_data === null)).toEqual([false, true, true, true, false]);
  });
});
