import fc from 'fast-check';
import { Agent, request } from 'undici';
import { createMessage, createProject, createThread, TestProject } from './support/factories';
import { deploy, INVOKE_APP_ENV, listen } from './support/invoke-factories';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';
import { FuzzContext, FuzzRequest, requestFor } from './fuzz/arbitraries';
import { problemsWith } from './fuzz/expectations';
import { FuzzRoute, routesOf } from './fuzz/route-table';

/**
 * Issue 13 item 2: seeded, property-based fuzzing of every route of the running application (read
 * from its OpenAPI document), on whichever engine this run uses. Each request must answer below 500
 * with its endpoint group's documented error body, and a control thread in a project whose key the
 * fuzzer never holds must be unchanged afterwards.
 *
 * Replay a failure with the seed it prints: FUZZ_SEED=<seed> npx jest test/fuzz.e2e-spec.ts
 * FUZZ_RUNS sets the number of requests (default 10,000).
 */
const itemIdOf = (messageId: string) => `msg_${messageId.replace(/-/g, '')}_0_0`;

const SEED = Number(process.env.FUZZ_SEED ?? 13_2026);
const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);

describe('fuzz: hostile requests to every route', () => {
  let t: TestApp;
  let baseUrl: string;
  let routes: FuzzRoute[];
  let ctx: FuzzContext;
  let control: { project: TestProject; threadId: string };
  const agent = new Agent({ connections: 4, keepAliveTimeout: 10_000 });

  beforeAll(async () => {
    t = await createTestApp(INVOKE_APP_ENV);
    baseUrl = await listen(t);
    const document = (await t.http().get('/docs-json').expect(200)).body;
    routes = routesOf(document);

    const fuzz = await createProject(t);
    const variables = { name: 'world' };
    const template = [{ role: 'system', content: 'Hello {{name}}.' }];
    await deploy(t, fuzz, { slug: 'fz-prompt', template, variables, environments: ['production', 'staging'] });
    await deploy(t, fuzz, { slug: 'fz-assistant', kind: 'assistant', template, variables });
    const fuzzThread = await createThread(t, fuzz, { metadata: { role: 'fuzz' } });
    const fuzzMessage = await createMessage(t, fuzz, fuzzThread.id, 'fuzz message');

    const other = await createProject(t);
    const controlThread = await createThread(t, other, { metadata: { owner: 'control', n: 1 }, createLog: { id: 'log-control' } });
    const controlMessages = [];
    for (const text of ['first', 'second', 'third']) controlMessages.push(await createMessage(t, other, controlThread.id, text, { text }));
    control = { project: other, threadId: controlThread.id };

    const ids = [fuzzThread.id, fuzzMessage.id, controlThread.id, controlMessages[1].id, '0193b1e2-7c4d-7a2b-9c3d-0123456789ab', 'not-an-id'];
    ctx = {
      document,
      ids,
      pathValues: {
        workspace: [fuzz.workspace, other.workspace],
        project: [fuzz.project, other.project],
        slug: ['fz-prompt', 'fz-assistant'],
        environment: ['production', 'staging'],
        threadId: [fuzzThread.id, controlThread.id],
        messageId: [fuzzMessage.id, controlMessages[0].id],
        // /v1/conversations: a conversation is a thread; an item id names a thread message.
        conversationId: [fuzzThread.id, controlThread.id],
        itemId: [itemIdOf(fuzzMessage.id), itemIdOf(controlMessages[2].id), 'msg_0_0'],
        name: ['fz-cred', 'local'],
        version: ['1', '2', '0'],
      },
      // Never the control project's key: what it owns must only be reachable by mistake.
      auth: [
        { 'x-api-key': fuzz.key },
        { 'x-api-key': fuzz.key },
        { 'x-api-key': fuzz.key },
        { authorization: `Bearer ${fuzz.key}` },
        { 'x-api-key': TEST_ADMIN_KEY },
        {},
        { 'x-api-key': 'pk_not-a-key' },
      ],
    };
  });

  afterAll(async () => {
    await agent.close();
    await t.close();
  });

  const controlSnapshot = async () => {
    const { projectId, key } = control.project;
    const thread = await t.http().get(`/v2/threads/${control.threadId}`).set('X-API-Key', key);
    const messages = await t.http().get(`/v2/threads/${control.threadId}/messages`).set('X-API-Key', key);
    const rows = await t.dataSource.query('SELECT * FROM thread_messages WHERE project_id = $1 ORDER BY seq', [projectId]);
    const threads = await t.dataSource.query('SELECT * FROM threads WHERE project_id = $1', [projectId]);
    return JSON.stringify({ thread: [thread.status, thread.body], messages: [messages.status, messages.body], rows, threads });
  };

  async function send(req: FuzzRequest) {
    const res = await request(baseUrl + req.url, { method: req.method as 'GET', headers: req.headers, body: req.body, dispatcher: agent });
    const text = await res.body.text();
    return { status: res.statusCode, contentType: String(res.headers['content-type'] ?? ''), text };
  }

  it('derives its routes from the application, invoke and management endpoints included', () => {
    const names = routes.map((route) => `${route.method} ${route.path}`);
    expect(names).toEqual(
      expect.arrayContaining([
        'POST /v2/threads',
        'POST /v2/threads/{threadId}/messages/{messageId}',
        'POST /{workspace}/{project}/{slug}/{environment}',
        'PUT /v2/provider-credentials/{name}',
        'POST /v2/workspaces/{workspace}/projects/{project}/api-keys',
      ]),
    );
    expect(routes.filter((route) => route.group === 'invoke').length).toBeGreaterThanOrEqual(2);
  });

  it(`answers ${RUNS} seeded hostile requests (seed ${SEED}) below 500 with the documented error bodies; the control thread is unchanged`, async () => {
    const before = await controlSnapshot();
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(requestFor(ctx, routes), async (req) => {
        const res = await send(req);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        const problems = problemsWith(req, res);
        if (problems.length > 0) {
          const { route: _route, ...shown } = req;
          throw new Error(`${problems.join('; ')}\nrequest: ${JSON.stringify(shown).slice(0, 4000)}\nresponse: ${res.status} ${res.text.slice(0, 2000)}`);
        }
      }),
      // No shrinking against a live server: the failing request itself is printed, with the seed.
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    expect(await controlSnapshot()).toBe(before);
    // The fuzzer reached past validation too, not only its 400s.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(RUNS / 50);
    expect([...statuses.keys()].every((status) => status < 500)).toBe(true);
  }, 600_000);
});
