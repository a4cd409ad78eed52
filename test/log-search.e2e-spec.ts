import { SEARCH_WINDOW } from '../src/request-logs/request-log-search';
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
import { createProject, TestProject } from './support/factories';
import { Client, client, expectResourceError } from './support/http';
import { addProviderCredential, deploy, INVOKE_APP_ENV, invokePath } from './support/invoke-factories';
import { bulkInsertLogs } from './support/log-factories';
import { createTestApp, TestApp } from './support/test-app';

interface LogDto {
  id: string;
  projectId: string;
  promptSlug: string;
  status: number;
  error: string | null;
  doNotRecord: boolean;
}
interface Page {
  data: LogDto[];
  has_more: boolean;
  first_id: string | null;
  last_id: string | null;
}

/** GET /v2/logs?q=: full-text search of a log's input, output and error (docs/performance.md, "Full-text search over request logs"). */
describe('request log search (q)', () => {
  let t: TestApp;
  let p: TestProject;
  let other: TestProject;
  let api: Client;
  let openai: FakeUpstream;
  let claude: FakeUpstream;
  /** The id of the log of each call made in beforeAll, by name. */
  const logs: Record<string, string> = {};

  const page = async (query: string): Promise<Page> => (await api.get(`/v2/logs?${query}`).expect(200)).body;
  const search = async (q: string, more = '', as: Client = api): Promise<string[]> =>
    (await as.get(`/v2/logs?limit=100&q=${encodeURIComponent(q)}${more}`).expect(200)).body.data.map((l: LogDto) => l.id);
  /** Invokes and answers the log id (x-parley-log-id, or the newest log for a failure). */
  const call = async (slug: string, body: object, as: TestProject = p): Promise<string> => {
    const res = await client(t, as.key).post(invokePath(as, slug), body);
    if (res.headers['x-parley-log-id']) return res.headers['x-parley-log-id'];
    return (await client(t, as.key).get('/v2/logs?limit=1').expect(200)).body.data[0].id;
  };
  const user = (content: string) => ({ messages: [{ role: 'user', content }] });

  beforeAll(async () => {
    openai = await startFakeOpenAIUpstream();
    claude = await startFakeAnthropicUpstream();
    t = await createTestApp({ ...INVOKE_APP_ENV, PROVIDER_MAX_RETRIES: '0' });
    p = await createProject(t);
    other = await createProject(t);
    api = client(t, p.key);
    for (const project of [p, other]) {
      await addProviderCredential(t, project, { name: 'upstream', type: 'openai', baseUrl: openai.url, apiKey: 'sk-s' });
      await deploy(t, project, { slug: 'echo', template: [{ role: 'system', content: 'About {{topic}}.' }] });
      await deploy(t, project, { slug: 'remote', provider: 'upstream', model: 'gpt-s' });
    }
    await addProviderCredential(t, p, { name: 'claude', type: 'anthropic', baseUrl: claude.url, apiKey: 'sk-c' });
    await deploy(t, p, { slug: 'claude', provider: 'claude', model: 'claude-s' });

    logs.echo = await call('echo', { ...user('Quokka sightings near the harbour'), variables: { topic: 'Patagonia' } });
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
    logs.secret = await call('echo', { ...user('Kilimanjaro is a secret'), doNotRecord: true });
    // The same words in another project.
    logs.otherEcho = await call('echo', { ...user('Quokka sightings near the harbour'), variables: { topic: 'Patagonia' } }, other);
    openai.setNext(openaiJson(openaiCompletion({ content: 'Your parcel left Zanzibar yesterday' })));
    logs.otherReply = await call('remote', user('Where is my parcel?'), other);
  });
  afterAll(async () => {
    // The PostgreSQL test database is shared and kept between runs: leave no volume behind.
    await t.dataSource.query('DELETE FROM request_logs WHERE project_id IN ($1, $2) AND prompt_slug = $3', [
      p.projectId,
      other.projectId,
      'bulk',
    ]);
    await t.close();
    await openai.close();
    await claude.close();
  });

  it('finds a word in the input (messages and variables), the reply (text, tool arguments, a stream, Anthropic) and the error', async () => {
    expect(await search('quokka')).toEqual([logs.echo]);
    expect(await search('patagonia')).toEqual([logs.echo]);
    expect(await search('parcel')).toEqual([logs.reply]);
    expect(await search('zanzibar')).toEqual([logs.reply]);
    expect(await search('reykjavik')).toEqual([logs.tool]);
    expect(await search('ulaanbaatar')).toEqual([logs.stream]);
    expect(await search('montevideo')).toEqual([logs.claude]);
    const failed = (await page(`q=${encodeURIComponent('work')}`)).data;
    expect(failed.map((l) => [l.id, l.status])).toEqual([[logs.failed, 502]]);
    const word = /[a-z]{4,}/i.exec(failed[0].error!)![0];
    expect(await search(word)).toContain(logs.failed);
  });

  it('matches whole words in any case, with the web search syntax: all words, "a phrase", or, -word', async () => {
    expect(await search('QUOKKA Harbour')).toEqual([logs.echo]);
    expect(await search('quokk')).toEqual([]);
    expect(await search('"sightings near"')).toEqual([logs.echo]);
    expect(await search('"near sightings"')).toEqual([]);
    expect(await search('zanzibar or montevideo')).toEqual([logs.claude, logs.reply]);
    expect(await search('parcel -zanzibar')).toEqual([]);
    expect(await search('quokka -zanzibar')).toEqual([logs.echo]);
  });

  it("never shows another project's logs, which hold the same words", async () => {
    expect(await search('quokka or parcel')).toEqual([logs.reply, logs.echo]);
    expect(await search('quokka zanzibar or parcel')).toEqual([logs.reply]);
    expect(await search('quokka or parcel', '', client(t, other.key))).toEqual([logs.otherReply, logs.otherEcho]);
    const listed = (await page('q=quokka%20or%20parcel')).data;
    expect(listed.every((l) => l.projectId === p.projectId)).toBe(true);
  });

  it('does not match the content of a doNotRecord call, which is not stored', async () => {
    expect(await search('kilimanjaro')).toEqual([]);
    expect(await search('secret')).toEqual([]);
    const [row] = await t.dataSource.query('SELECT search::text AS search FROM request_logs WHERE project_id = $1 AND id = $2', [
      p.projectId,
      logs.secret,
    ]);
    expect(row.search).toBe(`'project ${p.projectId}'`);
  });

  it('combines with the other filters', async () => {
    expect(await search('parcel or quokka', '&slug=remote')).toEqual([logs.reply]);
    expect(await search('parcel or quokka', '&slug=echo')).toEqual([logs.echo]);
    expect(await search('work or parcel', '&status=error')).toEqual([logs.failed]);
    expect(await search('work or parcel', '&status=success')).toEqual([logs.reply]);
    expect(await search('parcel', '&model=gpt-s&provider=upstream')).toEqual([logs.reply]);
    expect(await search('parcel', '&model=echo')).toEqual([]);
  });

  it('a search without words is an empty page, never an error', async () => {
    const empty = { object: 'list', data: [], has_more: false, first_id: null, last_id: null };
    for (const q of ['', '!!!', '"', '-', '"" -', '*']) expect([q, await page(`q=${encodeURIComponent(q)}`)]).toEqual([q, empty]);
  });

  it('a search too long, of too many words, repeated or holding U+0000 is a 400 naming q', async () => {
    const cases: [string, string[]][] = [
      [`q=${'a'.repeat(201)}`, ['q: at most 200 characters']],
      [`q=${encodeURIComponent(Array.from({ length: 17 }, (_, i) => `w${i}`).join(' '))}`, ['q: at most 16 words']],
      ['q=a&q=b', ['q: Invalid input: expected string, received array']],
    ];
    for (const [query, details] of cases) {
      const res = await api.get(`/v2/logs?${query}`);
      expectResourceError(res, 400, 'Invalid request parameters');
      expect([query.slice(0, 40), res.body.error.details]).toEqual([query.slice(0, 40), details]);
    }
    expectResourceError(await api.get('/v2/logs?q=a%00b'), 400, 'Invalid request parameters');
    expect((await api.get(`/v2/logs?q=${encodeURIComponent(Array.from({ length: 16 }, (_, i) => `w${i}`).join(' '))}`)).status).toBe(200);
  });

  it(`pages through every match once, in order both ways, past the first ${SEARCH_WINDOW} logs (the GIN index's slices)`, async () => {
    // Oldest first: a rare word every 400th log, a frequent one every 3rd, in more logs than the window reads.
    const count = SEARCH_WINDOW + 700;
    const inputs = Array.from(
      { length: count },
      (_, i) => `bulk log ${i}${i % 400 === 7 ? ' rarity' : ''}${i % 3 === 0 ? ' frequent' : ''}`,
    );
    const failed = (i: number) => i % 800 === 7 || i % 13 === 0;
    const ids = await bulkInsertLogs(t, p.projectId, inputs, { outputs: inputs.map((_, i) => (failed(i) ? null : `reply ${i}`)) });
    const matching = (word: string) => ids.filter((_, i) => inputs[i].includes(word));
    const walk = async (query: string): Promise<string[]> => {
      const seen: string[] = [];
      for (let after = ''; ;) {
        const body = await page(`${query}${after}`);
        seen.push(...body.data.map((l) => l.id));
        if (!body.has_more) return seen;
        expect(body.last_id).toBe(body.data.at(-1)!.id);
        after = `&after=${body.last_id}`;
      }
    };
    expect(await walk('q=rarity&limit=2')).toEqual(matching('rarity').reverse());
    expect(await walk('q=rarity&limit=4&order=asc')).toEqual(matching('rarity'));
    const frequent = await walk('q=frequent&limit=100');
    expect(frequent).toEqual(matching('frequent').reverse());
    expect(new Set(frequent).size).toBe(frequent.length);
    // With a filter (status) and a phrase, still every match once.
    const failedRare = ids.filter((_, i) => inputs[i].includes('rarity') && failed(i));
    expect(failedRare.length).toBeGreaterThanOrEqual(2);
    expect(await walk('q=rarity&status=502&limit=1')).toEqual([...failedRare].reverse());
    expect(await walk('q=rarity&status=error&limit=3')).toEqual([...failedRare].reverse());
    expect(await walk('q=frequent&status=success&limit=100&order=asc')).toEqual(
      ids.filter((_, i) => inputs[i].includes('frequent') && !failed(i)),
    );
    expect(await walk(`q=${encodeURIComponent('"log 7 rarity"')}&limit=3`)).toEqual([ids[7]]);
  });
});
