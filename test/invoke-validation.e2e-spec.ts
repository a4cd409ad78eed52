import { createProject, TestProject } from './support/factories';
import { Client, client } from './support/http';
import { deploy, expectInvalidBody, INVOKE_APP_ENV, invokePath, requestLogRows } from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

/** Spec "Errors": the invoke 400 `{error: 'Invalid request body', issues}`, every problem at once. */
describe('invoke: body validation', () => {
  let t: TestApp;
  let p: TestProject;
  let api: Client;
  let promptPath: string;
  let assistantPath: string;

  beforeAll(async () => {
    t = await createTestApp(INVOKE_APP_ENV);
    p = await createProject(t);
    api = client(t, p.key);
    await deploy(t, p, { slug: 'summarize', template: [{ role: 'system', content: 'Summarize for {{audience}}.' }] });
    await deploy(t, p, {
      slug: 'helper',
      kind: 'assistant',
      template: [{ role: 'system', content: 'Help with {{topic}}.' }],
      variables: { tone: 'warm' },
    });
    promptPath = invokePath(p, 'summarize');
    assistantPath = invokePath(p, 'helper');
  });
  afterAll(() => t.close());

  it('answers the spec example exactly: an unknown variable is unrecognized_keys at ["variables"]', async () => {
    const res = await api.post(promptPath, { variables: { audience: 'kids', tone: 'dry' } });
    expectInvalidBody(res, [
      {
        code: 'unrecognized_keys',
        keys: ['tone'],
        path: ['variables'],
        message: 'Unrecognized key "tone" at "variables": the template declares "audience"',
      },
    ]);
  });

  it('allows the variables the template uses and those declared with a default, and nothing else', async () => {
    await api.post(assistantPath, { variables: { topic: 'tea', tone: 'cold' } }).expect(200);
    const res = await api.post(assistantPath, { variables: { topic: 'tea', audience: 'x', mood: 'y' } });
    expectInvalidBody(res, [
      {
        code: 'unrecognized_keys',
        keys: ['audience', 'mood'],
        path: ['variables'],
        message: 'Unrecognized keys "audience", "mood" at "variables": the template declares "tone", "topic"',
      },
    ]);
  });

  it.each([
    ['the root', { stream: false, n: 2 }, ['n'], []],
    [
      'messages[1]',
      {
        messages: [
          { role: 'user', content: 'a' },
          { role: 'user', content: 'b', refusal: null },
        ],
      },
      ['refusal'],
      ['messages', '1'],
    ],
    [
      'a content part',
      { messages: [{ role: 'user', content: [{ type: 'text', text: 'a', cache_control: {} }] }] },
      ['cache_control'],
      ['messages', '0', 'content', '0'],
    ],
    [
      'an image part',
      { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x.invalid/a.png', size: 1 } }] }] },
      ['size'],
      ['messages', '0', 'content', '0', 'image_url'],
    ],
    [
      'a tool call',
      {
        messages: [
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' }, index: 0 }],
          },
        ],
      },
      ['index'],
      ['messages', '0', 'tool_calls', '0'],
    ],
    [
      'a tool call function',
      {
        messages: [
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}', strict: true } }],
          },
        ],
      },
      ['strict'],
      ['messages', '0', 'tool_calls', '0', 'function'],
    ],
    ['tool_choice', { tool_choice: { type: 'function', function: { name: 'f' }, force: true } }, ['force'], ['tool_choice']],
    [
      'tool_choice.function',
      { tool_choice: { type: 'function', function: { name: 'f', description: 'd' } } },
      ['description'],
      ['tool_choice', 'function'],
    ],
    ['response_format', { response_format: { type: 'json_object', json_schema: {} } }, ['json_schema'], ['response_format']],
    ['a template message', { template: [{ role: 'system', content: 'x', weight: 2 }] }, ['weight'], ['template', '0']],
  ])('rejects an unknown key in %s, with its path as strings', async (_where, body, keys, path) => {
    const res = await api.post(assistantPath, body);
    expectInvalidBody(res, [{ code: 'unrecognized_keys', keys, path, message: expect.stringContaining(`"${keys[0]}"`) }]);
  });

  it.each([
    ['temperature as a string', { temperature: 'hot' }, ['temperature'], 'Expected number at "temperature", received string "hot"'],
    ['temperature above 2', { temperature: 2.01 }, ['temperature'], 'Expected number between 0 and 2 at "temperature", received 2.01'],
    ['temperature below 0', { temperature: -0.5 }, ['temperature'], 'Expected number between 0 and 2 at "temperature", received -0.5'],
    ['max_tokens 0', { max_tokens: 0 }, ['max_tokens'], 'Expected integer >= 1 at "max_tokens", received 0'],
    ['stream as a string', { stream: 'true' }, ['stream'], 'Expected boolean at "stream", received string "true"'],
    ['model as a number', { model: 4 }, ['model'], 'Expected string at "model", received number 4'],
    [
      'a variable value that is not a string',
      { variables: { topic: 5 } },
      ['variables', 'topic'],
      'Expected string at "variables.topic", received number 5',
    ],
    [
      'a message role',
      { messages: [{ role: 'robot', content: 'x' }] },
      ['messages', '0', 'role'],
      'Expected one of "assistant", "user", "system", "function", "tool" at "messages.0.role", received "robot"',
    ],
    ['threadId as a number', { threadId: 7 }, ['threadId'], 'Expected string at "threadId", received number 7'],
    [
      'response_format text',
      { response_format: { type: 'text' } },
      ['response_format', 'type'],
      'Expected "json_object" at "response_format.type", received "text"',
    ],
    ['metadata as an array', { metadata: ['a'] }, ['metadata'], 'Expected object at "metadata", received array'],
  ])('rejects %s as invalid_type with keys []', async (_what, body, path, message) => {
    expectInvalidBody(await api.post(assistantPath, body), [{ code: 'invalid_type', keys: [], path, message }]);
  });

  it('accepts temperature at both bounds, 0 and 2', async () => {
    await api.post(promptPath, { temperature: 0 }).expect(200);
    await api.post(promptPath, { temperature: 2 }).expect(200);
  });

  it('reports several problems of one body at once', async () => {
    const res = await api.post(assistantPath, {
      variables: { topic: 'tea', name: 'Ann' },
      messages: [{ role: 'user', content: [{ type: 'text', text: 'a', bold: true }] }],
      temperature: 3,
      stream: 'yes',
      mode: 'fast',
    });
    expectInvalidBody(res, [
      { code: 'unrecognized_keys', keys: ['bold'], path: ['messages', '0', 'content', '0'], message: expect.any(String) },
      { code: 'invalid_type', keys: [], path: ['stream'], message: 'Expected boolean at "stream", received string "yes"' },
      { code: 'invalid_type', keys: [], path: ['temperature'], message: 'Expected number between 0 and 2 at "temperature", received 3' },
      { code: 'unrecognized_keys', keys: ['mode'], path: [], message: 'Unrecognized key "mode"' },
      {
        code: 'unrecognized_keys',
        keys: ['name'],
        path: ['variables'],
        message: expect.stringMatching(/^Unrecognized key "name" at "variables"/),
      },
    ]);
  });

  it('treats threadId sent to a prompt as an unrecognized key at the root', async () => {
    const res = await api.post(promptPath, { threadId: '01900000-0000-7000-8000-000000000000' });
    expectInvalidBody(res, [{ code: 'unrecognized_keys', keys: ['threadId'], path: [], message: 'Unrecognized key "threadId"' }]);
  });

  it('rejects a body that is not JSON, or not an object, with one issue at the root', async () => {
    const malformed = await api.postRaw(promptPath, '{"variables": {');
    expectInvalidBody(malformed, [{ code: 'invalid_type', keys: [], path: [], message: expect.stringMatching(/not valid JSON/) }]);
    expectInvalidBody(await api.postRaw(promptPath, '[1,2]'), [
      { code: 'invalid_type', keys: [], path: [], message: 'Expected object, received array' },
    ]);
    expectInvalidBody(await api.postRaw(promptPath, '"hello"'), [
      { code: 'invalid_type', keys: [], path: [], message: 'Expected object, received string "hello"' },
    ]);
  });

  it('accepts an empty body (every field is optional), whatever the Content-Type', async () => {
    await api.post(promptPath).expect(200);
    await t
      .http()
      .post(promptPath)
      .set('X-API-Key', p.key)
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send('{"variables":{"audience":"cats"}}')
      .expect(200);
  });

  it('rejects a body template that does not compile, at its message', async () => {
    const res = await api.post(promptPath, {
      template: [
        { role: 'system', content: 'ok' },
        { role: 'user', content: 'Hi {{#if x}}' },
      ],
    });
    expectInvalidBody(res, [{ code: 'invalid_type', keys: [], path: ['template', '1', 'content'], message: expect.any(String) }]);
  });

  it('writes no request log for a rejected body, and calls no provider', async () => {
    const q = await createProject(t);
    await deploy(t, q, { slug: 'p' });
    const res = await client(t, q.key).post(invokePath(q, 'p'), { temperature: 9 });
    expect(res.status).toBe(400);
    expect(await requestLogRows(t, q.projectId)).toEqual([]);
  });
});
