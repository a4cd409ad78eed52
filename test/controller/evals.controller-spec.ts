import type { Type } from '@nestjs/common';

import type { Scope } from '../../src/auth/scopes';
import { DatasetsController } from '../../src/evals/datasets/datasets.controller';
import { GradersController } from '../../src/evals/graders/graders.controller';
import { RunsController } from '../../src/evals/runs/runs.controller';
import { EnvironmentsController } from '../../src/registry/environments/environments.controller';
import { ControllerApp, createControllerApp, keyedApi } from './support/controller-app';
import { createEvalFakes, DATASET_ERRORS, EVAL_KEYS, EvalFakes, evalProviders, GATE_ERRORS } from './support/eval-fakes';
import { expectErrorAnswer, expectInvalidApiKey, expectResourceError } from './support/expect-errors';
import { KEYS, UNKNOWN_UUID } from './support/fakes';

/**
 * The evaluations' routes (docs/evals.md): datasets, graders, experiment runs and the deploy gates
 * of environments, booted with the app's guard, pipe and filter over in-memory fakes
 * (support/eval-fakes.ts). Every 400 of a bad body (the zod bodies' `{error: {message: "Invalid
 * request body", details}}`, one `path: problem` line each; the class-validator bodies' and
 * queries' own) and of a bad query, the 401 without a key, the 403 of a key lacking the route's
 * scope, and the 404s and service 400s the services raise on state the fakes hold. The real
 * conditions against a database: test/evals-*.e2e-spec.ts.
 */
const EVAL_CONTROLLERS: Type[] = [DatasetsController, GradersController, RunsController, EnvironmentsController];

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

interface EvalEndpoint {
  method: Method;
  path: string;
  scope: Scope;
  /** A body the pipe accepts; the writes name nothing that exists, so the service answers its 404. */
  body?: object;
}

const DATASET = 'support-questions';
const GRADER = 'mentions-city';
const LOG_ID = '01990000-0000-7000-8000-00000000c001';

const EVAL_ENDPOINTS: EvalEndpoint[] = [
  { method: 'post', path: '/v2/datasets', scope: 'registry:write', body: { name: 'auth-check' } },
  { method: 'get', path: '/v2/datasets', scope: 'registry:read' },
  { method: 'get', path: `/v2/datasets/${DATASET}`, scope: 'registry:read' },
  { method: 'delete', path: '/v2/datasets/no-such', scope: 'registry:write' },
  { method: 'get', path: `/v2/datasets/${DATASET}/versions`, scope: 'registry:read' },
  { method: 'get', path: `/v2/datasets/${DATASET}/items`, scope: 'registry:read' },
  { method: 'post', path: '/v2/datasets/no-such/items', scope: 'registry:write', body: { items: [{}] } },
  { method: 'post', path: '/v2/datasets/no-such/import', scope: 'registry:write', body: { format: 'jsonl', content: '{}' } },
  { method: 'post', path: '/v2/datasets/no-such/items/from', scope: 'registry:write', body: { logId: UNKNOWN_UUID } },
  { method: 'get', path: `/v2/datasets/${DATASET}/items/${UNKNOWN_UUID}`, scope: 'registry:read' },
  { method: 'patch', path: `/v2/datasets/no-such/items/${UNKNOWN_UUID}`, scope: 'registry:write', body: {} },
  { method: 'delete', path: `/v2/datasets/no-such/items/${UNKNOWN_UUID}`, scope: 'registry:write' },
  { method: 'put', path: '/v2/graders/auth-check', scope: 'registry:write', body: { config: { type: 'equals' } } },
  { method: 'get', path: '/v2/graders', scope: 'registry:read' },
  { method: 'get', path: `/v2/graders/${GRADER}`, scope: 'registry:read' },
  { method: 'delete', path: '/v2/graders/no-such', scope: 'registry:write' },
  {
    method: 'post',
    path: '/v2/evals/runs',
    scope: 'registry:write',
    body: { dataset: 'no-such', target: { prompt: 'support-reply', version: 1 }, graders: [GRADER] },
  },
  { method: 'get', path: '/v2/evals/runs', scope: 'registry:read' },
  { method: 'get', path: `/v2/evals/runs/${UNKNOWN_UUID}`, scope: 'registry:read' },
  { method: 'get', path: `/v2/evals/runs/${UNKNOWN_UUID}/items`, scope: 'registry:read' },
  { method: 'post', path: `/v2/evals/runs/${UNKNOWN_UUID}/cancel`, scope: 'registry:write' },
  { method: 'get', path: `/v2/evals/runs/${UNKNOWN_UUID}/compare/${UNKNOWN_UUID}`, scope: 'registry:read' },
  { method: 'get', path: '/v2/environments/production/gate', scope: 'registry:read' },
  {
    method: 'put',
    path: '/v2/environments/no-such/gate',
    scope: 'registry:write',
    body: { dataset: DATASET, minScores: { [GRADER]: 0.9 } },
  },
  { method: 'delete', path: '/v2/environments/no-such/gate', scope: 'registry:write' },
];

describe('controller tier: evaluations (datasets, graders, runs, deploy gates)', () => {
  let t: ControllerApp;
  let fakes: EvalFakes;
  let itemIds: string[];
  let runId: string;
  let baseRunId: string;

  beforeAll(async () => {
    fakes = createEvalFakes();
    t = await createControllerApp({ controllers: EVAL_CONTROLLERS, providers: evalProviders(fakes), keys: fakes.keys });
    itemIds = fakes.datasets.seed(DATASET, [
      { variables: { city: 'Oslo' }, messages: [], expected: 'Oslo', metadata: {} },
      { variables: { city: 'Lima' }, messages: [], expected: 'Lima', metadata: {} },
    ]);
    fakes.datasets.logs.set(LOG_ID, { city: 'Quito' });
    await fakes.graders.put({ projectId: '' }, GRADER, { config: { type: 'contains', ignoreCase: true } });
    runId = fakes.runs.seed(DATASET);
    baseRunId = fakes.runs.seed(DATASET);
  });
  afterAll(() => t.close());

  const api = keyedApi(() => t, KEYS.full);
  const writer = keyedApi(() => t, EVAL_KEYS.registryWrite);
  const calls = () => [fakes.datasets, fakes.graders, fakes.runs, fakes.environments, fakes.gates].flatMap((fake) => fake.calls.splice(0));
  beforeEach(() => void calls());

  const send = (endpoint: EvalEndpoint, headers: Record<string, string>) => {
    const req = t.http()[endpoint.method](endpoint.path).set(headers);
    return endpoint.body === undefined ? req : req.send(endpoint.body);
  };

  describe.each(EVAL_ENDPOINTS.map((endpoint) => [`${endpoint.method.toUpperCase()} ${endpoint.path}`, endpoint] as const))(
    '%s: authentication and scopes',
    (_name, endpoint) => {
      it('401 {error: "Unauthorized", message: "Invalid API key"} without a key or with an unknown one', async () => {
        expectInvalidApiKey(await send(endpoint, {}));
        expectInvalidApiKey(await send(endpoint, { 'X-API-Key': 'ck-no-such-key' }));
        expect(calls()).toEqual([]);
      });

      it(`403 for a key without ${endpoint.scope}, and for the admin key without X-Parley-Project`, async () => {
        expectErrorAnswer(await send(endpoint, { 'X-API-Key': KEYS.logsOnly }), 403, {
          error: 'Forbidden',
          message: `This API key lacks the scope this endpoint needs: ${endpoint.scope}`,
        });
        expectErrorAnswer(await send(endpoint, { 'X-API-Key': KEYS.admin }), 403, {
          error: 'Forbidden',
          message: 'This endpoint needs a project API key',
        });
        if (endpoint.scope === 'registry:write') {
          expectErrorAnswer(await send(endpoint, { 'X-API-Key': EVAL_KEYS.registryRead }), 403, {
            error: 'Forbidden',
            message: 'This API key lacks the scope this endpoint needs: registry:write',
          });
        }
        expect(calls()).toEqual([]);
      });

      it('passes a key holding the scope on to the service', async () => {
        const key = endpoint.scope === 'registry:read' ? EVAL_KEYS.registryRead : KEYS.full;
        const res = await send(endpoint, { 'X-API-Key': key });
        expect([401, 403]).not.toContain(res.status);
        expect(calls().length).toBe(1);
      });
    },
  );

  describe('datasets', () => {
    describe('POST /v2/datasets (class-validator body)', () => {
      it.each([
        ['an unknown field', { name: 'a', colour: 'red' }, ['colour: unknown field']],
        ['no name', { description: 'x' }, undefined],
        [
          'a name that is no slug',
          { name: 'Support Questions' },
          ['name must be 1-64 lower-case letters, digits, "-" or "_", starting with a letter or digit'],
        ],
        [
          'a description of 2,001 characters',
          { name: 'a', description: 'x'.repeat(2001) },
          ['description must be shorter than or equal to 2000 characters'],
        ],
        [
          'a description that is no string',
          { name: 'a', description: 5 },
          ['description must be a string', 'description must be shorter than or equal to 2000 characters'],
        ],
      ])('400 "Invalid request body" for %s, before the service', async (_label, body, details) => {
        expectResourceError(await api.post('/v2/datasets', body), 400, 'Invalid request body', details);
        expect(calls()).toEqual([]);
      });

      it.each([
        ['malformed JSON', '{"name":'],
        ['a JSON array', '[{"name": "a"}]'],
        ['JSON null', 'null'],
      ])('400 "Invalid request body" for %s (no details: no field to name)', async (_label, raw) => {
        expectResourceError(await api.raw('post', '/v2/datasets', raw), 400, 'Invalid request body', null);
        expect(calls()).toEqual([]);
      });

      it('200 with the dataset at version 0; 409 for a name taken', async () => {
        const res = await api.post('/v2/datasets', { name: 'fresh', description: 'new' });
        expect([res.status, res.body]).toEqual([
          200,
          expect.objectContaining({ object: 'dataset', name: 'fresh', description: 'new', version: 0, itemCount: 0 }),
        ]);
        expectResourceError(await api.post('/v2/datasets', { name: DATASET }), 409, `A dataset named "${DATASET}" already exists`, null);
      });
    });

    describe('GET /v2/datasets', () => {
      it.each([
        ['limit=0', ['limit must be an integer from 1 to 100']],
        ['limit=101', ['limit must be an integer from 1 to 100']],
        ['limit=abc', ['limit must be an integer from 1 to 100']],
        [`after=${'x'.repeat(65)}`, ['after must be shorter than or equal to 64 characters']],
      ])('400 "Invalid request parameters" for ?%s, before the service', async (query, details) => {
        expectResourceError(await api.get(`/v2/datasets?${query}`), 400, 'Invalid request parameters', details);
        expect(calls()).toEqual([]);
      });

      it('200: the list by name, `last_id` the last name', async () => {
        const res = await api.get('/v2/datasets?limit=1');
        expect(res.status).toBe(200);
        expect(Object.keys(res.body).sort()).toEqual(['data', 'has_more', 'last_id', 'object']);
        expect(res.body.last_id).toBe(res.body.data[0].name);
      });
    });

    describe('a dataset by name: GET, versions, DELETE', () => {
      it.each(['no-such', 'Not%20A%20Slug'])(`404 "${DATASET_ERRORS.notFound}" for %s`, async (name) => {
        expectResourceError(await api.get(`/v2/datasets/${name}`), 404, DATASET_ERRORS.notFound, null);
        expectResourceError(await api.get(`/v2/datasets/${name}/versions`), 404, DATASET_ERRORS.notFound, null);
        expectResourceError(await api.delete(`/v2/datasets/${name}`), 404, DATASET_ERRORS.notFound, null);
      });

      it('200 for one that exists; deleted, it is the 404', async () => {
        fakes.datasets.seed('to-delete');
        expect((await api.get('/v2/datasets/to-delete/versions')).body).toEqual({ object: 'list', data: [] });
        expect((await api.delete('/v2/datasets/to-delete')).body).toEqual({ name: 'to-delete', object: 'dataset', deleted: true });
        expectResourceError(await api.delete('/v2/datasets/to-delete'), 404, DATASET_ERRORS.notFound, null);
        expectResourceError(await api.get('/v2/datasets/to-delete'), 404, DATASET_ERRORS.notFound, null);
      });
    });

    describe('GET /v2/datasets/{name}/items', () => {
      it.each([
        ['version=abc', ['version must be a whole number']],
        ['version=-1', ['version must be a whole number']],
        ['version=1.5', ['version must be a whole number']],
        ['limit=101', ['limit must be an integer from 1 to 100']],
      ])('400 "Invalid request parameters" for ?%s, before the service', async (query, details) => {
        expectResourceError(await api.get(`/v2/datasets/${DATASET}/items?${query}`), 400, 'Invalid request parameters', details);
        expect(calls()).toEqual([]);
      });

      it('400 "Invalid request parameters" for an `after` that is no item id', async () => {
        expectResourceError(await api.get(`/v2/datasets/${DATASET}/items?after=nope`), 400, 'Invalid request parameters', [
          'after: expected the id of an item',
        ]);
      });

      it('404 for an unknown dataset, and for a version past the current one', async () => {
        expectResourceError(await api.get('/v2/datasets/no-such/items'), 404, DATASET_ERRORS.notFound, null);
        expectResourceError(await api.get(`/v2/datasets/${DATASET}/items?version=99`), 404, `Dataset "${DATASET}" has no version 99`, null);
      });

      it('200: the page of items with the version it read', async () => {
        const res = await api.get(`/v2/datasets/${DATASET}/items?version=0`);
        expect(res.status).toBe(200);
        expect(Object.keys(res.body).sort()).toEqual(['data', 'first_id', 'has_more', 'last_id', 'object', 'version']);
        expect(res.body.version).toBe(0);
      });
    });

    describe('POST /v2/datasets/{name}/items (zod body)', () => {
      it.each([
        ['no items', {}, ['items: Invalid input: expected array, received undefined']],
        ['no item', { items: [] }, ['items: Too small: expected array to have >=1 items']],
        [
          'an item with a bad variable name, nested metadata and an unknown field',
          { items: [{ variables: { 'bad name': 'x' }, metadata: { a: { b: 1 } }, colour: 1 }] },
          ['items.0.variables.bad name: Invalid key in record', 'items.0.metadata.a: Invalid input', 'items.0: Unrecognized key: "colour"'],
        ],
        ['1,001 items', { items: Array.from({ length: 1001 }, () => ({})) }, ['items: Too big: expected array to have <=1000 items']],
        ['an unknown top-level field', { items: [{}], dataset: DATASET }, ['Unrecognized key: "dataset"']],
      ])('400 for %s, before the service', async (_label, body, details) => {
        expectResourceError(await api.post(`/v2/datasets/${DATASET}/items`, body), 400, 'Invalid request body', details);
        expect(calls()).toEqual([]);
      });

      it.each([
        ['malformed JSON', '{"items":', 'body: the body is not valid JSON'],
        ['a JSON array', '[]', 'body: expected a JSON object'],
        ['JSON null', 'null', 'body: expected a JSON object'],
        ['nesting past 64 levels', '['.repeat(100) + ']'.repeat(100), 'body: the body nests arrays and objects more than 64 levels deep'],
      ])('400 for %s, naming the body', async (_label, raw, detail) => {
        expectResourceError(await api.raw('post', `/v2/datasets/${DATASET}/items`, raw), 400, 'Invalid request body', [detail]);
        expect(calls()).toEqual([]);
      });

      it('404 for an unknown dataset; 200 with the new version and the ids', async () => {
        expectResourceError(await api.post('/v2/datasets/no-such/items', { items: [{}] }), 404, DATASET_ERRORS.notFound, null);
        fakes.datasets.seed('adding');
        const res = await api.post('/v2/datasets/adding/items', { items: [{ variables: { city: 'Oslo', n: 1 } }, {}] });
        expect([res.status, res.body]).toEqual([200, { version: 1, itemCount: 2, itemIds: [expect.any(String), expect.any(String)] }]);
      });
    });

    describe('POST /v2/datasets/{name}/import', () => {
      it('400 for an unknown format and empty content, before the service', async () => {
        expectResourceError(await api.post(`/v2/datasets/${DATASET}/import`, { format: 'xml', content: '' }), 400, 'Invalid request body', [
          'format: Invalid option: expected one of "jsonl"|"csv"',
          'content: Too small: expected string to have >=1 characters',
        ]);
        expect(calls()).toEqual([]);
      });

      it("400 naming each bad line of the file (the service's check), and a file without items", async () => {
        const content = '{"variables": {"city": "Oslo"}}\nnot json\n{"colour": 1}';
        expectResourceError(await api.post(`/v2/datasets/${DATASET}/import`, { format: 'jsonl', content }), 400, 'Invalid request body', [
          'line 2: not a JSON object',
          'line 3: item: Unrecognized key: "colour"',
        ]);
        expectResourceError(
          await api.post(`/v2/datasets/${DATASET}/import`, { format: 'csv', content: 'city,expected\n' }),
          400,
          'Invalid request body',
          ['content: no items'],
        );
      });

      it('404 for an unknown dataset; 200 for a good file', async () => {
        const body = { format: 'csv', content: 'city,expected\nOslo,Oslo\n' };
        expectResourceError(await api.post('/v2/datasets/no-such/import', body), 404, DATASET_ERRORS.notFound, null);
        fakes.datasets.seed('importing');
        expect((await api.post('/v2/datasets/importing/import', body)).body).toEqual({
          version: 1,
          itemCount: 1,
          itemIds: [expect.any(String)],
        });
      });
    });

    describe('POST /v2/datasets/{name}/items/from', () => {
      it.each([
        ['neither a log nor a thread turn', {}, ['Expected either logId, or threadId and messageId']],
        ['a thread without its message', { threadId: UNKNOWN_UUID }, ['Expected either logId, or threadId and messageId']],
        [
          'a log and a thread turn',
          { logId: LOG_ID, threadId: UNKNOWN_UUID, messageId: 'm' },
          ['Expected either logId, or threadId and messageId'],
        ],
        [
          'a logId that is no UUID and includeAnswer a string',
          { logId: 'nope', includeAnswer: 'yes' },
          ['logId: Invalid UUID', 'includeAnswer: Invalid input: expected boolean, received string'],
        ],
      ])('400 for %s, before the service', async (_label, body, details) => {
        expectResourceError(await api.post(`/v2/datasets/${DATASET}/items/from`, body), 400, 'Invalid request body', details);
        expect(calls()).toEqual([]);
      });

      it('403 for a key that may not read what it copies (logs:read, threads:read)', async () => {
        expectErrorAnswer(await writer.post(`/v2/datasets/${DATASET}/items/from`, { logId: LOG_ID }), 403, {
          error: 'Forbidden',
          message: 'This API key lacks the logs:read scope',
        });
        expectErrorAnswer(
          await writer.post(`/v2/datasets/${DATASET}/items/from`, { threadId: UNKNOWN_UUID, messageId: UNKNOWN_UUID }),
          403,
          { error: 'Forbidden', message: 'This API key lacks the threads:read scope' },
        );
      });

      it('404 for an unknown log or thread turn, then for an unknown dataset; 200 copying a log', async () => {
        expectResourceError(
          await api.post(`/v2/datasets/${DATASET}/items/from`, { logId: UNKNOWN_UUID }),
          404,
          DATASET_ERRORS.logNotFound,
          null,
        );
        expectResourceError(
          await api.post(`/v2/datasets/${DATASET}/items/from`, { threadId: UNKNOWN_UUID, messageId: UNKNOWN_UUID }),
          404,
          DATASET_ERRORS.turnNotFound,
          null,
        );
        expectResourceError(await api.post('/v2/datasets/no-such/items/from', { logId: LOG_ID }), 404, DATASET_ERRORS.notFound, null);
        fakes.datasets.seed('copying');
        expect((await api.post('/v2/datasets/copying/items/from', { logId: LOG_ID })).status).toBe(200);
      });
    });

    describe('an item: GET, PATCH, DELETE', () => {
      it.each([
        [
          'an unknown field and variables a string',
          { colour: 1, variables: 'x' },
          ['variables: Invalid input: expected record, received string', 'Unrecognized key: "colour"'],
        ],
        ['messages that are no chat messages', { messages: [{ role: 'robot' }] }, undefined],
      ])('PATCH: 400 for %s, before the service', async (_label, body, details) => {
        expectResourceError(await api.patch(`/v2/datasets/${DATASET}/items/${itemIds[0]}`, body), 400, 'Invalid request body', details);
        expect(calls()).toEqual([]);
      });

      it('PATCH: 400 for malformed JSON, naming the body', async () => {
        expectResourceError(await api.raw('patch', `/v2/datasets/${DATASET}/items/${itemIds[0]}`, '['), 400, 'Invalid request body', [
          'body: the body is not valid JSON',
        ]);
        expect(calls()).toEqual([]);
      });

      it(`404 "${DATASET_ERRORS.notFound}" and "${DATASET_ERRORS.itemNotFound}"`, async () => {
        for (const [name, itemId, message] of [
          ['no-such', itemIds[0], DATASET_ERRORS.notFound],
          [DATASET, UNKNOWN_UUID, DATASET_ERRORS.itemNotFound],
          [DATASET, 'not-an-id', DATASET_ERRORS.itemNotFound],
        ]) {
          const path = `/v2/datasets/${name}/items/${itemId}`;
          expectResourceError(await api.get(path), 404, message, null);
          expectResourceError(await api.patch(path, { expected: 'x' }), 404, message, null);
          expectResourceError(await api.delete(path), 404, message, null);
        }
      });

      it('200 for an item; edited, then removed, it is the 404', async () => {
        const [id] = fakes.datasets.seed('editing', [{ variables: { city: 'Oslo' }, messages: [], metadata: {} }]);
        const path = `/v2/datasets/editing/items/${id}`;
        expect((await api.get(path)).body).toEqual(expect.objectContaining({ id, object: 'dataset.item', variables: { city: 'Oslo' } }));
        expect((await api.patch(path, { expected: 'Oslo' })).body).toEqual(
          expect.objectContaining({ id, expected: 'Oslo', sinceVersion: 2 }),
        );
        expect((await api.delete(path)).body).toEqual({ version: 3, itemCount: 0, itemIds: [id] });
        expectResourceError(await api.get(path), 404, DATASET_ERRORS.itemNotFound, null);
      });
    });
  });

  describe('graders: PUT /v2/graders/{name}', () => {
    it.each([
      ['no config', {}, ['config: Invalid input: expected object, received undefined']],
      [
        'an unknown check',
        { config: { type: 'psychic' } },
        [
          "config.type: Invalid discriminator value. Expected 'equals' | 'contains' | 'regex' | 'json_schema' | 'json_path' | 'tool_call' | 'latency' | 'cost' | 'model'",
        ],
      ],
      [
        'a threshold above 1 and an unknown field of the check',
        { threshold: 2, config: { type: 'equals', extra: 1 } },
        ['threshold: Too big: expected number to be <=1', 'config: Unrecognized key: "extra"'],
      ],
      ['a latency of 0 ms', { config: { type: 'latency', maxMs: 0 } }, ['config.maxMs: Too small: expected number to be >=1']],
      ['a field more', { config: { type: 'equals' }, name: GRADER }, ['Unrecognized key: "name"']],
    ])('400 for %s, before the service', async (_label, body, details) => {
      expectResourceError(await api.put(`/v2/graders/${GRADER}`, body), 400, 'Invalid request body', details);
      expect(calls()).toEqual([]);
    });

    it.each([
      ['malformed JSON', '{"config":', 'body: the body is not valid JSON'],
      ['a JSON array', '[]', 'body: expected a JSON object'],
    ])('400 for %s, naming the body', async (_label, raw, detail) => {
      expectResourceError(await api.raw('put', `/v2/graders/${GRADER}`, raw), 400, 'Invalid request body', [detail]);
    });

    it.each([
      [
        'a pattern RE2 refuses (look-behind)',
        { type: 'regex', pattern: '(?<=a)b' },
        ['config: error parsing regexp: invalid named capture: `(?<=a)b`'],
      ],
      [
        'a JSONPath filter expression',
        { type: 'json_path', path: '$[?(@.a)]' },
        ['config: filter and script expressions are not supported'],
      ],
    ])("400 for %s: the service's check at save time", async (_label, config, details) => {
      expectResourceError(await api.put('/v2/graders/checked', { config }), 400, 'Invalid request body', details);
      expect(calls()).toEqual(['put']);
    });

    it('400 for a JSON Schema Ajv cannot compile', async () => {
      const res = await api.put('/v2/graders/checked', { config: { type: 'json_schema', schema: { type: 'nope' } } });
      expectResourceError(res, 400, 'Invalid request body', [expect.stringMatching(/^config: schema is invalid: /)]);
    });

    it('400 for a name that is no slug (the path is not checked by the pipe)', async () => {
      expectResourceError(await api.put('/v2/graders/Not%20A%20Slug', { config: { type: 'equals' } }), 400, 'Invalid request body', [
        'name: expected a grader name: 1-64 lower-case letters, digits, "-" or "_"',
      ]);
    });

    it('200 with the grader and its default threshold', async () => {
      const res = await api.put('/v2/graders/is-json', { config: { type: 'json_schema', schema: { type: 'object' } } });
      expect([res.status, res.body]).toEqual([
        200,
        expect.objectContaining({ object: 'grader', name: 'is-json', type: 'json_schema', threshold: 1 }),
      ]);
    });
  });

  describe('graders: GET, DELETE', () => {
    it('404 "Grader not found" for an unknown name or one that is no slug', async () => {
      for (const name of ['no-such', 'Not%20A%20Slug']) {
        expectResourceError(await api.get(`/v2/graders/${name}`), 404, 'Grader not found', null);
        expectResourceError(await api.delete(`/v2/graders/${name}`), 404, 'Grader not found', null);
      }
    });

    it('200 list and get; deleted, it is the 404', async () => {
      await api.put('/v2/graders/short-lived', { config: { type: 'latency', maxMs: 1000 } }).expect(200);
      expect((await api.get('/v2/graders')).body.data.map((g: { name: string }) => g.name)).toContain('short-lived');
      expect((await api.delete('/v2/graders/short-lived')).body).toEqual({ name: 'short-lived', object: 'grader', deleted: true });
      expectResourceError(await api.get('/v2/graders/short-lived'), 404, 'Grader not found', null);
    });
  });

  describe('runs: POST /v2/evals/runs', () => {
    const valid = { dataset: DATASET, target: { prompt: 'support-reply', version: 1 }, graders: [GRADER] };

    it.each([
      [
        'an empty object',
        {},
        ['dataset: Expected a dataset name', 'target: Invalid input', 'graders: Invalid input: expected array, received undefined'],
      ],
      [
        'a target of neither shape, no grader and a concurrency of 65',
        { ...valid, target: { prompt: 'support-reply' }, graders: [], concurrency: 65 },
        [
          'target: Invalid input',
          'graders: Too small: expected array to have >=1 items',
          'concurrency: Too big: expected number to be <=64',
        ],
      ],
      ['a dataset version below 0', { ...valid, datasetVersion: -1 }, ['datasetVersion: Too small: expected number to be >=0']],
      ['a field more', { ...valid, prompt: 'support-reply' }, ['Unrecognized key: "prompt"']],
    ])('400 for %s, before the service', async (_label, body, details) => {
      expectResourceError(await api.post('/v2/evals/runs', body), 400, 'Invalid request body', details);
      expect(calls()).toEqual([]);
    });

    it("400 for a malformed Idempotency-Key, with this endpoint's message", async () => {
      expectResourceError(await api.post('/v2/evals/runs', valid).set('Idempotency-Key', 'two words'), 400, 'Invalid request body', [
        'Idempotency-Key: must be 1 to 255 visible ASCII characters',
      ]);
      expect(calls()).toEqual([]);
    });

    it('403 for a key that may change the registry but not invoke (a run calls models)', async () => {
      expectErrorAnswer(await writer.post('/v2/evals/runs', valid), 403, {
        error: 'Forbidden',
        message: 'This API key lacks the invoke scope an experiment run needs',
      });
    });

    it('404 for an unknown dataset; 400 for a dataset version it does not have', async () => {
      expectResourceError(await api.post('/v2/evals/runs', { ...valid, dataset: 'no-such' }), 404, DATASET_ERRORS.notFound, null);
      expectResourceError(await api.post('/v2/evals/runs', { ...valid, datasetVersion: 9 }), 400, 'Invalid request body', [
        `datasetVersion: dataset "${DATASET}" has no version 9`,
      ]);
    });

    it('400 for graders that name nothing, twice the same, or hold a check that cannot compile', async () => {
      expectResourceError(await api.post('/v2/evals/runs', { ...valid, graders: ['no-such', 'nor-this'] }), 400, 'Invalid request body', [
        'graders: no grader named "no-such" in this project',
        'graders: no grader named "nor-this" in this project',
      ]);
      expectResourceError(
        await api.post('/v2/evals/runs', { ...valid, graders: [GRADER, { name: GRADER, config: { type: 'equals' } }] }),
        400,
        'Invalid request body',
        [`graders: "${GRADER}" is named twice`],
      );
      expectResourceError(
        await api.post('/v2/evals/runs', { ...valid, graders: [{ name: 'inline', config: { type: 'regex', pattern: '(a)\\1' } }] }),
        400,
        'Invalid request body',
        [expect.stringMatching(/^graders\.0\.config: /)],
      );
    });

    it('200: the run, queued', async () => {
      const res = await api.post('/v2/evals/runs', valid);
      expect([res.status, res.body.object, res.body.status, res.body.dataset]).toEqual([
        200,
        'eval.run',
        'queued',
        { name: DATASET, version: 1 },
      ]);
    });
  });

  describe('runs: reading, cancelling, comparing', () => {
    it.each([
      ['', 'limit=101', ['limit must be an integer from 1 to 100']],
      ['', `prompt=${'x'.repeat(65)}`, ['prompt must be shorter than or equal to 64 characters']],
      ['', `dataset=${'x'.repeat(65)}`, ['dataset must be shorter than or equal to 64 characters']],
      ['/{id}/items', 'passed=maybe', ['passed must be one of the following values: true, false']],
      ['/{id}/compare/{baseId}', 'outcome=worse', ['outcome must be one of the following values: regressed, improved, unchanged']],
    ])('GET /v2/evals/runs%s?%s: 400 "Invalid request parameters", before the service', async (suffix, query, details) => {
      const path = `/v2/evals/runs${suffix.replace('{id}', runId).replace('{baseId}', baseRunId)}?${query}`;
      expectResourceError(await api.get(path), 400, 'Invalid request parameters', details);
      expect(calls()).toEqual([]);
    });

    it('404 "Dataset not found" listing by an unknown dataset; 200 by a known one, and by a prompt', async () => {
      expectResourceError(await api.get('/v2/evals/runs?dataset=no-such'), 404, DATASET_ERRORS.notFound, null);
      expect((await api.get(`/v2/evals/runs?dataset=${DATASET}`)).body.data.length).toBeGreaterThanOrEqual(2);
      expect((await api.get('/v2/evals/runs?prompt=no-such')).body).toEqual({
        object: 'list',
        data: [],
        has_more: false,
        first_id: null,
        last_id: null,
      });
    });

    it('404 "Run not found" for an unknown id or one that is no UUID, on every route of a run', async () => {
      for (const id of [UNKNOWN_UUID, 'not-an-id']) {
        expectResourceError(await api.get(`/v2/evals/runs/${id}`), 404, 'Run not found', null);
        expectResourceError(await api.get(`/v2/evals/runs/${id}/items`), 404, 'Run not found', null);
        expectResourceError(await api.post(`/v2/evals/runs/${id}/cancel`), 404, 'Run not found', null);
        expectResourceError(await api.get(`/v2/evals/runs/${id}/compare/${baseRunId}`), 404, 'Run not found', null);
        expectResourceError(await api.get(`/v2/evals/runs/${runId}/compare/${id}`), 404, 'Run not found', null);
      }
    });

    it('200 for a run, its items, its cancel and a comparison', async () => {
      expect((await api.get(`/v2/evals/runs/${runId}`)).body).toEqual(expect.objectContaining({ id: runId, object: 'eval.run' }));
      expect((await api.get(`/v2/evals/runs/${runId}/items?passed=false`)).body.object).toBe('list');
      const queued = fakes.runs.seed(DATASET, 'queued');
      expect((await api.post(`/v2/evals/runs/${queued}/cancel`)).body.status).toBe('cancelled');
      const compared = await api.get(`/v2/evals/runs/${runId}/compare/${baseRunId}?outcome=improved`);
      expect([compared.status, compared.body.object, compared.body.outcome]).toEqual([200, 'eval.comparison', 'improved']);
    });
  });

  describe('deploy gates: /v2/environments/{slug}/gate', () => {
    const gate = { dataset: DATASET, minScores: { [GRADER]: 0.9 } };

    it.each([
      [
        'an empty object',
        {},
        ['dataset: Invalid input: expected string, received undefined', 'minScores: Invalid input: expected record, received undefined'],
      ],
      [
        'a dataset name that is no slug and no grader',
        { dataset: 'Support', minScores: {} },
        ['dataset: Expected a dataset name', 'minScores: Expected 1 to 20 graders'],
      ],
      [
        '21 graders',
        { dataset: DATASET, minScores: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`g${i}`, 0.5])) },
        ['minScores: Expected 1 to 20 graders'],
      ],
      [
        'a grader name that is no slug, and a field more',
        { ...gate, minScores: { 'Mentions City': 0.5 }, environment: 'production' },
        ['minScores.Mentions City: Invalid key in record', 'Unrecognized key: "environment"'],
      ],
      ['a minimum above 1', { ...gate, minScores: { [GRADER]: 1.5 } }, [`minScores.${GRADER}: Too big: expected number to be <=1`]],
    ])('PUT: 400 for %s, before the service', async (_label, body, details) => {
      expectResourceError(await api.put('/v2/environments/production/gate', body), 400, 'Invalid request body', details);
      expect(calls()).toEqual([]);
    });

    it.each([
      ['malformed JSON', '{"dataset":', 'body: the body is not valid JSON'],
      ['a JSON string', '"production"', 'body: expected a JSON object'],
    ])('PUT: 400 for %s, naming the body', async (_label, raw, detail) => {
      expectResourceError(await api.raw('put', '/v2/environments/production/gate', raw), 400, 'Invalid request body', [detail]);
    });

    it(`404 "${GATE_ERRORS.environmentNotFound}" on every gate route`, async () => {
      for (const slug of ['no-such', 'Not%20A%20Slug']) {
        const path = `/v2/environments/${slug}/gate`;
        expectResourceError(await api.get(path), 404, GATE_ERRORS.environmentNotFound, null);
        expectResourceError(await api.put(path, gate), 404, GATE_ERRORS.environmentNotFound, null);
        expectResourceError(await api.delete(path), 404, GATE_ERRORS.environmentNotFound, null);
      }
    });

    it('400 for a gate on a dataset the project does not have', async () => {
      expectResourceError(await api.put('/v2/environments/staging/gate', { ...gate, dataset: 'no-such' }), 400, 'Invalid request body', [
        'dataset: no dataset named "no-such" in this project',
      ]);
    });

    it(`404 "${GATE_ERRORS.noGate}" until one is set; set, read and removed, it is the 404 again`, async () => {
      const path = '/v2/environments/preview/gate';
      expectResourceError(await api.get(path), 404, GATE_ERRORS.noGate, null);
      expectResourceError(await api.delete(path), 404, GATE_ERRORS.noGate, null);
      expect((await api.put(path, gate)).body).toEqual({ environment: 'preview', ...gate });
      expect((await api.get(path)).body).toEqual({ environment: 'preview', ...gate });
      expect((await api.delete(path)).body).toEqual({ environment: 'preview', deleted: true });
      expectResourceError(await api.get(path), 404, GATE_ERRORS.noGate, null);
    });
  });
});
