import { createProject, TestProject } from './support/factories';
import { client } from './support/http';
import { deploy, INVOKE_APP_ENV, invokePath } from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

type Schema = {
  $ref?: string;
  type?: string;
  nullable?: boolean;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
};

/**
 * The OpenAPI document at /docs-json must describe what the endpoints really answer: every field
 * of a real response is declared with its type, and every declared required field is present.
 */
describe('Swagger document against real responses', () => {
  let t: TestApp;
  let p: TestProject;
  let doc: {
    paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: Schema }> }> }>>;
    components: { schemas: Record<string, Schema> };
  };

  beforeAll(async () => {
    t = await createTestApp(INVOKE_APP_ENV);
    p = await createProject(t);
    doc = (await t.http().get('/docs-json').expect(200)).body;
  });
  afterAll(() => t.close());

  const resolve = (schema: Schema): Schema => {
    if (schema.$ref) return resolve(doc.components.schemas[schema.$ref.split('/').pop()!]);
    if (schema.allOf) {
      const parts = schema.allOf.map(resolve);
      return {
        type: 'object',
        properties: Object.assign({}, ...parts.map((s) => s.properties ?? {})),
        required: parts.flatMap((s) => s.required ?? []),
      };
    }
    return schema;
  };

  /** Problems of `value` against `schema`, one line each, located by `path`. */
  const problems = (value: unknown, schema: Schema, path: string): string[] => {
    const s = resolve(schema);
    if (value === null) return s.nullable || s.type === undefined ? [] : [`${path}: null but not nullable`];
    const variants = s.oneOf ?? s.anyOf;
    if (variants) return variants.some((v) => problems(value, v, path).length === 0) ? [] : [`${path}: matches no variant`];
    const actual = Array.isArray(value) ? 'array' : typeof value;
    if (s.type === 'integer' && !Number.isInteger(value)) return [`${path}: expected integer`];
    if (s.type && s.type !== 'integer' && s.type !== actual) return [`${path}: expected ${s.type}, got ${actual}`];
    if (actual === 'array' && s.items) return (value as unknown[]).flatMap((item, i) => problems(item, s.items!, `${path}[${i}]`));
    if (actual === 'object' && s.properties) {
      const obj = value as Record<string, unknown>;
      const undeclared = Object.keys(obj)
        .filter((k) => !(k in s.properties!))
        .map((k) => `${path}.${k}: not in the document`);
      const missing = (s.required ?? []).filter((k) => !(k in obj)).map((k) => `${path}.${k}: required but absent`);
      const nested = Object.entries(obj).flatMap(([k, v]) => (s.properties![k] ? problems(v, s.properties![k], `${path}.${k}`) : []));
      return [...undeclared, ...missing, ...nested];
    }
    return [];
  };

  const schemaOf = (path: string, method: string): Schema => {
    const content = doc.paths[path]?.[method]?.responses['200']?.content;
    expect(content).toBeDefined();
    return content!['application/json'].schema;
  };

  it('thread and message endpoints answer what the document says', async () => {
    const api = client(t, p.key);
    const created = (await api.post('/v2/threads', { metadata: { a: 1 } }).expect(200)).body;
    const message = (await api.post(`/v2/threads/${created.id}/messages`, { message: { content: 'hi' } }).expect(200)).body;
    const checks: [string, string, unknown][] = [
      ['/v2/threads', 'post', created],
      ['/v2/threads', 'get', (await api.get('/v2/threads').expect(200)).body],
      ['/v2/threads/{threadId}', 'get', (await api.get(`/v2/threads/${created.id}`).expect(200)).body],
      ['/v2/threads/{threadId}', 'post', (await api.post(`/v2/threads/${created.id}`, { metadata: { b: 'x' } }).expect(200)).body],
      ['/v2/threads/{threadId}/messages', 'post', message],
      ['/v2/threads/{threadId}/messages', 'get', (await api.get(`/v2/threads/${created.id}/messages`).expect(200)).body],
      [
        '/v2/threads/{threadId}/messages/{messageId}',
        'get',
        (await api.get(`/v2/threads/${created.id}/messages/${message.id}`).expect(200)).body,
      ],
      [
        '/v2/threads/{threadId}/messages/{messageId}',
        'post',
        (await api.post(`/v2/threads/${created.id}/messages/${message.id}`, { metadata: {} }).expect(200)).body,
      ],
      [
        '/v2/threads/{threadId}/messages/{messageId}',
        'delete',
        (await api.delete(`/v2/threads/${created.id}/messages/${message.id}`).expect(200)).body,
      ],
      ['/v2/threads/{threadId}', 'delete', (await api.delete(`/v2/threads/${created.id}`).expect(200)).body],
    ];
    for (const [path, method, body] of checks)
      expect([path, method, problems(body, schemaOf(path, method), '$')]).toEqual([path, method, []]);
  });

  it('an invoke and its request log answer what the document says', async () => {
    await deploy(t, p, { slug: 'doc-assistant', kind: 'assistant' });
    const api = client(t, p.key);
    const completion = (await api.post(invokePath(p, 'doc-assistant'), { messages: [{ role: 'user', content: 'hello' }] }).expect(200))
      .body;
    expect(problems(completion, schemaOf('/{workspace}/{project}/{slug}/{environment}', 'post'), '$')).toEqual([]);
    const logs = (await api.get('/v2/logs').expect(200)).body;
    expect(logs.data.length).toBeGreaterThan(0);
    expect(problems(logs, schemaOf('/v2/logs', 'get'), '$')).toEqual([]);
    const log = (await api.get(`/v2/logs/${logs.data[0].id}`).expect(200)).body;
    expect(log.threadMessageIds).toHaveLength(2);
    expect(problems(log, schemaOf('/v2/logs/{logId}', 'get'), '$')).toEqual([]);
  });

  it('the checker itself finds an undeclared field, a wrong type and a missing required field', () => {
    const schema = schemaOf('/v2/threads/{threadId}', 'get');
    expect(problems({ id: 1, createdAt: 'x', extra: true }, schema, '$')).toEqual(
      expect.arrayContaining([
        '$.extra: not in the document',
        '$.projectId: required but absent',
        '$.id: expected string, got number',
        '$.createdAt: expected number, got string',
      ]),
    );
  });
});
