import { createTestApp, TestApp } from './support/test-app';

type Operation = {
  tags?: string[];
  security?: object[];
  parameters?: { name: string; in: string; example?: unknown }[];
  responses: Record<string, { description: string; content?: Record<string, { example?: unknown }> }>;
  requestBody?: { content: Record<string, { examples?: Record<string, { value: unknown }> }> };
};

/** The Swagger document teaches: described tags, the demo seed as examples, every error status of the invoke. */
describe('Swagger document that teaches', () => {
  let t: TestApp;
  let doc: { tags: { name: string; description: string }[]; paths: Record<string, Record<string, Operation>> };

  beforeAll(async () => {
    t = await createTestApp();
    doc = (await t.http().get('/docs-json').expect(200)).body;
  });
  afterAll(() => t.close());

  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })));

  it('describes every tag an operation uses', () => {
    const described = new Map(doc.tags.map((tag) => [tag.name, tag.description]));
    const used = new Set(operations().flatMap(({ op }) => op.tags ?? []));
    for (const tag of used) expect([tag, (described.get(tag) ?? '').length > 20]).toEqual([tag, true]);
  });

  it('lists every error status of the invoke, and the demo seed as examples', () => {
    const invoke = doc.paths['/{workspace}/{project}/{slug}/{environment}'].post;
    expect(Object.keys(invoke.responses).sort()).toEqual(
      expect.arrayContaining(['200', '400', '401', '403', '404', '413', '429', '502', '503', '504']),
    );
    expect(Object.fromEntries((invoke.parameters ?? []).filter((p) => p.in === 'path').map((p) => [p.name, p.example]))).toEqual({
      workspace: 'default',
      project: 'default',
      slug: 'demo-prompt',
      environment: 'production',
    });
    const examples = invoke.requestBody!.content['application/json'].examples!;
    expect(examples.prompt.value).toEqual({
      variables: { name: 'Ada' },
      messages: [{ role: 'user', content: 'Hello!' }],
      temperature: 0.2,
    });
    expect(JSON.stringify(invoke)).not.toContain('additionalProp1');
  });

  it('lists 401 on every operation that takes a key, and the documented 401 body is the real one', async () => {
    // /v1 is documented by its own modules, in OpenAI's error shape.
    const secured = operations().filter(({ path, op }) => op.security?.length && !path.startsWith('/v1/'));
    expect(secured.length).toBeGreaterThan(20);
    for (const { path, method, op } of secured) expect([method, path, !!op.responses['401']]).toEqual([method, path, true]);
    const real = await t.http().post('/default/default/demo-prompt/production').send({}).expect(401);
    expect(real.body).toEqual(
      doc.paths['/{workspace}/{project}/{slug}/{environment}'].post.responses['401'].content!['application/json'].example,
    );
  });
});
