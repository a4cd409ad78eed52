import { PostgresQueryRunner } from 'typeorm/driver/postgres/PostgresQueryRunner';

import { anthropicJson, anthropicMessage, startFakeAnthropicUpstream } from './fakes/fake-anthropic-upstream';
import {
  FakeUpstream,
  openaiChunks,
  openaiCompletion,
  openaiError,
  openaiJson,
  openaiStream,
  startFakeOpenAIUpstream,
} from './fakes/fake-openai-upstream';
import { createMessage, createProject, createThread, TestProject } from './support/factories';
import { Client, client, expectResourceError } from './support/http';
import { addProviderCredential, deploy, INVOKE_APP_ENV, invokePath } from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

interface Preview {
  input: string | null;
  output: string | null;
}
interface ListedLog {
  id: string;
  doNotRecord: boolean;
  status: number;
  costUsd: string | null;
  latencyMs: number;
  preview: Preview;
}
interface MessagePreview {
  role: string;
  text: string;
}
interface ThreadPreview {
  first: MessagePreview | null;
  last: MessagePreview | null;
  messageCount: number;
  messageCountCapped: boolean;
  calls: number;
  costUsd: string | null;
}

/**
 * What the console's lists show of what was said (docs/decisions.md, "Request log storage" and "Threads and messages"): each
 * log's input and reply (GET /v2/logs), each thread's first and last message, its message count
 * and its calls' cost (GET /v2/threads?include=preview), read in the list's one query, and nothing
 * of a doNotRecord call.
 */
describe('previews in the log and thread lists', () => {
  let t: TestApp;
  let p: TestProject;
  let api: Client;
  let openai: FakeUpstream;
  let claude: FakeUpstream;
  const logs: Record<string, string> = {};

  const call = async (slug: string, body: object): Promise<string> => {
    const res = await api.post(invokePath(p, slug), body);
    if (res.headers['x-parley-log-id']) return res.headers['x-parley-log-id'];
    return (await api.get('/v2/logs?limit=1').expect(200)).body.data[0].id;
  };
  const user = (content: unknown) => ({ messages: [{ role: 'user', content }] });
  const listed = async (query = 'limit=100'): Promise<Map<string, ListedLog>> =>
    new Map(((await api.get(`/v2/logs?${query}`).expect(200)).body.data as ListedLog[]).map((log) => [log.id, log]));
  const previewOf = async (name: string): Promise<Preview> => (await listed()).get(logs[name])!.preview;
  const threadPreviews = async (query = ''): Promise<Map<string, ThreadPreview>> =>
    new Map(
      ((await api.get(`/v2/threads?include=preview${query}`).expect(200)).body.data as { id: string; preview: ThreadPreview }[]).map(
        (thread) => [thread.id, thread.preview],
      ),
    );
  const long = `${'Hello   there,\n\n'.repeat(4)}${'word '.repeat(120)}the end`;

  beforeAll(async () => {
    openai = await startFakeOpenAIUpstream();
    claude = await startFakeAnthropicUpstream();
    t = await createTestApp({ ...INVOKE_APP_ENV, PROVIDER_MAX_RETRIES: '0' });
    p = await createProject(t);
    api = client(t, p.key);
    await addProviderCredential(t, p, { name: 'upstream', type: 'openai', baseUrl: openai.url, apiKey: 'sk-s' });
    await addProviderCredential(t, p, { name: 'claude', type: 'anthropic', baseUrl: claude.url, apiKey: 'sk-c' });
    await deploy(t, p, { slug: 'echo', template: [{ role: 'system', content: 'About {{topic}}.' }] });
    await deploy(t, p, { slug: 'summary', template: [{ role: 'user', content: 'Summarize for {{audience}}: {{text}}' }] });
    await deploy(t, p, { slug: 'remote', provider: 'upstream', model: 'gpt-4o-mini' });
    await deploy(t, p, { slug: 'claude', provider: 'claude', model: 'claude-s' });
    await deploy(t, p, { slug: 'helper', kind: 'assistant', provider: 'upstream', model: 'gpt-4o-mini' });

    logs.echo = await call('echo', { ...user('Quokka sightings near the harbour'), variables: { topic: 'Patagonia' } });
    logs.rendered = await call('summary', { variables: { audience: 'kids', text: 'the water cycle' } });
    openai.setNext(openaiJson(openaiCompletion({ content: 'Your parcel left Zanzibar yesterday' })));
    logs.reply = await call('remote', user('Where is my parcel?'));
    openai.setNext(openaiJson(openaiCompletion({ toolCalls: [{ id: 'call_1', name: 'weather', arguments: '{"city":"Reykjavik"}' }] })));
    logs.tool = await call('remote', user('Weather please'));
    openai.setNext(openaiStream(openaiChunks({ content: ['Greetings ', 'from ', 'Ulaanbaatar'] })));
    logs.stream = await call('remote', { ...user('Say hello'), stream: true });
    claude.setNext(anthropicJson(anthropicMessage({ text: 'Salut depuis Montevideo' })));
    logs.claude = await call('claude', user('Bonjour'));
    openai.setNext(openaiError(500, 'the upstream melted'));
    logs.failed = await call('remote', user('Will this work?'));
    logs.secret = await call('echo', { ...user('Kilimanjaro is a secret'), variables: { topic: 'secrets' }, doNotRecord: true });
    logs.long = await call('echo', { ...user(long), variables: { topic: 'length' } });
    logs.parts = await call('echo', {
      ...user([
        { type: 'text', text: 'What is in' },
        { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
        { type: 'text', text: 'this picture?' },
      ]),
      variables: { topic: 'pictures' },
    });
    logs.markup = await call('echo', { ...user('<img src=x onerror="window.__xss=1">'), variables: { topic: 'markup' } });
    const embedded = await api.post('/v1/embeddings', { model: 'local/embed', input: 'The quick brown fox', dimensions: 16 }).expect(200);
    logs.embedding = (await api.get('/v2/logs?limit=1').expect(200)).body.data[0].id;
    expect(embedded.body.data).toHaveLength(1);
  });
  afterAll(async () => {
    await t.close();
    await openai.close();
    await claude.close();
  });

  describe('GET /v2/logs', () => {
    it("previews the last user message sent (with the template rendered) and the reply's text, on every provider and surface", async () => {
      expect(await previewOf('echo')).toEqual({ input: 'Quokka sightings near the harbour', output: 'Quokka sightings near the harbour' });
      expect(await previewOf('rendered')).toEqual({
        input: 'Summarize for kids: the water cycle',
        output: 'Summarize for kids: the water cycle',
      });
      expect(await previewOf('reply')).toEqual({ input: 'Where is my parcel?', output: 'Your parcel left Zanzibar yesterday' });
      expect(await previewOf('tool')).toEqual({ input: 'Weather please', output: 'calls weather' });
      expect(await previewOf('stream')).toEqual({ input: 'Say hello', output: 'Greetings from Ulaanbaatar' });
      expect(await previewOf('claude')).toEqual({ input: 'Bonjour', output: 'Salut depuis Montevideo' });
      expect(await previewOf('parts')).toEqual({
        input: 'What is in this picture?',
        output: 'What is in this picture?',
      });
      expect(await previewOf('embedding')).toEqual({ input: 'The quick brown fox', output: '1 vector of 16 dimensions' });
    });

    it('a failed call previews its input, no output; the log keeps its error, cost and latency beside it', async () => {
      const failed = (await listed()).get(logs.failed)!;
      expect(failed.preview).toEqual({ input: 'Will this work?', output: null });
      expect(failed.status).toBe(502);
      const reply = (await listed()).get(logs.reply)!;
      expect(Number(reply.costUsd)).toBeGreaterThan(0);
      expect(reply.latencyMs).toBeGreaterThanOrEqual(0);
    });

    it('a doNotRecord call previews nothing, as nothing of it is stored', async () => {
      const secret = (await listed()).get(logs.secret)!;
      expect(secret.doNotRecord).toBe(true);
      expect(secret.preview).toEqual({ input: null, output: null });
      expect(JSON.stringify(secret)).not.toContain('Kilimanjaro');
    });

    it('folds whitespace and cuts at 160 characters, marked with …; markup stays text', async () => {
      const { input, output } = await previewOf('long');
      expect(input).toHaveLength(160);
      expect(input!.endsWith('…')).toBe(true);
      expect(input!.startsWith('Hello there, Hello there, Hello there, Hello there, word word')).toBe(true);
      expect(output).toBe(input);
      expect((await previewOf('markup')).input).toBe('<img src=x onerror="window.__xss=1">');
    });

    it('a search result and a filtered page carry the same previews', async () => {
      const found = await listed(`q=${encodeURIComponent('zanzibar or bonjour')}`);
      expect([...found.keys()].sort()).toEqual([logs.reply, logs.claude].sort());
      expect(found.get(logs.claude)!.preview).toEqual({ input: 'Bonjour', output: 'Salut depuis Montevideo' });
      const filtered = await listed('slug=remote&status=success&limit=2');
      expect([...filtered.values()].map((log) => log.preview.output)).toEqual(['Greetings from Ulaanbaatar', 'calls weather']);
    });
  });

  describe('GET /v2/threads?include=preview', () => {
    let chat: string;
    let empty: string;
    let edited: string;

    beforeAll(async () => {
      chat = (await createThread(t, p, { metadata: { customer: 'c_42' } })).id;
      openai.setNext(openaiJson(openaiCompletion({ content: 'Happy to help! Which grind would you like?' })));
      await call('helper', { threadId: chat, ...user('Hi! Can I switch my subscription to ground coffee?') });
      openai.setNext(openaiJson(openaiCompletion({ content: 'Done! Your next delivery will be ground for filter.' })));
      await call('helper', { threadId: chat, ...user('Filter, please.') });
      empty = (await createThread(t, p)).id;
      edited = (await createThread(t, p)).id;
      await createMessage(t, p, edited, 'The first question');
      const later = await createMessage(t, p, edited, 'A message deleted later');
      await api.delete(`/v2/threads/${edited}/messages/${later.id}`).expect(200);
    });

    it("previews a thread's first and last message, its message count, its calls and their cost", async () => {
      const preview = (await threadPreviews()).get(chat)!;
      const rows = (await api.get(`/v2/threads/${chat}/messages?limit=100`).expect(200)).body.data as unknown[];
      expect(preview).toEqual({
        first: { role: 'user', text: 'Hi! Can I switch my subscription to ground coffee?' },
        last: { role: 'assistant', text: 'Done! Your next delivery will be ground for filter.' },
        messageCount: rows.length,
        messageCountCapped: false,
        calls: 2,
        costUsd: expect.stringMatching(/^0\.\d+$/),
      });
      const costs = (await api.get(`/v2/logs?threadId=${chat}`).expect(200)).body.data.map((log: ListedLog) => Number(log.costUsd));
      expect(Number(preview.costUsd)).toBeCloseTo(costs[0] + costs[1], 12);
    });

    it('a thread without messages or calls, and one whose last message was deleted', async () => {
      const previews = await threadPreviews();
      expect(previews.get(empty)).toEqual({ first: null, last: null, messageCount: 0, messageCountCapped: false, calls: 0, costUsd: null });
      expect(previews.get(edited)).toEqual({
        first: { role: 'user', text: 'The first question' },
        last: { role: 'user', text: 'The first question' },
        messageCount: 1,
        messageCountCapped: false,
        calls: 0,
        costUsd: null,
      });
    });

    it('with the metadata filter and the cursor too', async () => {
      expect([...(await threadPreviews('&metadata=customer:c_42')).keys()]).toEqual([chat]);
      const after = (await threadPreviews(`&limit=1&after=${edited}`)).get(empty);
      expect(after?.messageCount).toBe(0);
    });

    it("without include, exactly the spec's fields; an include that is not preview is a 400", async () => {
      const plain = (await api.get('/v2/threads?limit=3').expect(200)).body.data as Record<string, unknown>[];
      for (const thread of plain) expect(Object.keys(thread).sort()).toEqual(['createLog', 'createdAt', 'id', 'metadata', 'projectId']);
      const refused = await api.get('/v2/threads?include=messages');
      expectResourceError(refused, 400, 'Invalid request parameters');
      expect(refused.body.error.details).toEqual(['include must be "preview"']);
    });
  });

  it('a page of 50 logs, and of 50 threads with their previews, is one query each', async () => {
    await api.get('/v2/logs?limit=50').expect(200);
    await api.get('/v2/threads?include=preview&limit=50').expect(200);
    // Every statement TypeORM sends, on either engine (PGlite's pool serves the same query runner).
    const spy = jest.spyOn(PostgresQueryRunner.prototype, 'query');
    const statements = (pattern: RegExp) => spy.mock.calls.map((args) => String(args[0])).filter((sql) => pattern.test(sql));
    try {
      await api.get('/v2/logs?limit=50').expect(200);
      expect(statements(/request_logs/)).toHaveLength(1);
      spy.mockClear();
      await api.get('/v2/threads?include=preview&limit=50').expect(200);
      expect(statements(/threads|thread_messages|request_logs/)).toHaveLength(1);
    } finally {
      spy.mockRestore();
    }
  });
});
