import { z } from 'zod';

import { expects, parseWithSpecIssues, SpecIssue, toSpecIssues } from './zod-issues';

/** The spec: exactly code, keys, path, message; paths and keys are strings. */
function expectSpecShape(issues: SpecIssue[]): void {
  expect(issues.length).toBeGreaterThan(0);
  for (const issue of issues) {
    expect(Object.keys(issue).sort()).toEqual(['code', 'keys', 'message', 'path']);
    expect(['unrecognized_keys', 'invalid_type']).toContain(issue.code);
    for (const part of [...issue.keys, ...issue.path]) expect(typeof part).toBe('string');
    expect(typeof issue.message).toBe('string');
    expect(issue.message.length).toBeGreaterThan(0);
  }
}

function issuesOf(schema: z.ZodType, input: unknown): SpecIssue[] {
  const result = parseWithSpecIssues(schema, input);
  if (result.ok) throw new Error(`expected a failure for ${JSON.stringify(input)}`);
  expectSpecShape(result.issues);
  return result.issues;
}

describe('toSpecIssues', () => {
  it('keeps unrecognized_keys with its keys and stringifies array indices in paths', () => {
    const schema = z.strictObject({ list: z.array(z.strictObject({ a: z.string() })) });
    expect(issuesOf(schema, { list: [{ a: 'x' }, { a: 'y', b: 1, c: 2 }] })).toEqual([
      { code: 'unrecognized_keys', keys: ['b', 'c'], path: ['list', '1'], message: 'Unrecognized keys "b", "c" at "list.1"' },
    ]);
  });

  it('reports a root problem with path []', () => {
    expect(issuesOf(z.strictObject({}), [1, 2])).toEqual([
      { code: 'invalid_type', keys: [], path: [], message: 'Expected object, received array' },
    ]);
  });

  it('says which type was expected and which came', () => {
    expect(issuesOf(z.strictObject({ n: z.string() }), { n: 5 })).toEqual([
      { code: 'invalid_type', keys: [], path: ['n'], message: 'Expected string at "n", received number 5' },
    ]);
  });

  it('maps every other zod code to invalid_type with keys []', () => {
    const schema = z.strictObject({
      big: z.number().max(2),
      small: z.number().gt(0),
      int: z.number().int(),
      pick: z.enum(['a', 'b']),
      email: z.email(),
      items: z.array(z.string()).min(1),
      step: z.number().multipleOf(5),
      odd: z.number().refine((n) => n % 2 === 1, 'Must be odd'),
    });
    const issues = issuesOf(schema, { big: 3, small: 0, int: 1.5, pick: 'c', email: 'nope', items: [], step: 7, odd: 2 });
    expect(issues.map((i) => [i.code, i.keys, i.path, i.message])).toEqual([
      ['invalid_type', [], ['big'], 'Expected number <= 2 at "big", received 3'],
      ['invalid_type', [], ['small'], 'Expected number > 0 at "small", received 0'],
      ['invalid_type', [], ['int'], 'Expected integer at "int", received 1.5'],
      ['invalid_type', [], ['pick'], 'Expected one of "a", "b" at "pick", received "c"'],
      ['invalid_type', [], ['email'], 'Expected string in email format at "email", received "nope"'],
      ['invalid_type', [], ['items'], 'Expected array with at least 1 item(s) at "items", received array of 0 item(s)'],
      ['invalid_type', [], ['step'], 'Expected multiple of 5 at "step", received 7'],
      ['invalid_type', [], ['odd'], 'Must be odd at "odd"'],
    ]);
  });

  it('uses a schema phrase given with expects() and still appends where and what came', () => {
    const schema = z.strictObject({ t: z.number().min(0, expects('number between 0 and 2')).max(2, expects('number between 0 and 2')) });
    expect(issuesOf(schema, { t: 3 })[0].message).toBe('Expected number between 0 and 2 at "t", received 3');
    expect(issuesOf(schema, { t: -1 })[0].message).toBe('Expected number between 0 and 2 at "t", received -1');
  });

  it('says a required field is missing rather than "received undefined"', () => {
    expect(issuesOf(z.strictObject({ name: z.string() }), {})).toEqual([
      { code: 'invalid_type', keys: [], path: ['name'], message: 'Missing required field "name": expected string' },
    ]);
  });

  describe('unions', () => {
    const part = z.strictObject({ kind: z.literal('p'), text: z.string() });
    const content = z.union([z.string(), z.array(part), z.null()]);
    const schema = z.strictObject({ content });

    it('reports the branch the input clearly matches (an array) with its own issues', () => {
      expect(issuesOf(schema, { content: [{ kind: 'p', text: 1, extra: true }] })).toEqual([
        {
          code: 'invalid_type',
          keys: [],
          path: ['content', '0', 'text'],
          message: 'Expected string at "content.0.text", received number 1',
        },
        { code: 'unrecognized_keys', keys: ['extra'], path: ['content', '0'], message: 'Unrecognized key "extra" at "content.0"' },
      ]);
    });

    it('lists what each branch wanted when no branch fits', () => {
      expect(issuesOf(schema, { content: 5 })).toEqual([
        { code: 'invalid_type', keys: [], path: ['content'], message: 'Expected string, array or null at "content", received number 5' },
      ]);
    });

    it('prefers the union phrase given with expects()', () => {
      const named = z.strictObject({ c: z.union([z.string(), z.null()], expects('string or null (the text)')) });
      expect(issuesOf(named, { c: true })[0].message).toBe('Expected string or null (the text) at "c", received boolean true');
    });

    it('names the options of a discriminated union and the value that came', () => {
      const tagged = z.array(
        z.discriminatedUnion('type', [z.strictObject({ type: z.literal('a') }), z.strictObject({ type: z.literal('b') })]),
      );
      expect(issuesOf(tagged, [{ type: 'a' }, { type: 'c' }])).toEqual([
        { code: 'invalid_type', keys: [], path: ['1', 'type'], message: 'Expected "a" or "b" at "1.type", received "c"' },
      ]);
    });
  });

  it('accepts a plain ZodError or an issue array parsed without reportInput', () => {
    const result = z.strictObject({ n: z.number() }).safeParse({ n: 'x', q: 1 });
    expect(result.success).toBe(false);
    const expected = [
      { code: 'invalid_type', keys: [], path: ['n'], message: 'Expected number at "n"' },
      { code: 'unrecognized_keys', keys: ['q'], path: [], message: 'Unrecognized key "q"' },
    ];
    expect(toSpecIssues(result.error!)).toEqual(expected);
    expect(toSpecIssues(result.error!.issues)).toEqual(expected);
  });

  it('returns the parsed value on success', () => {
    expect(parseWithSpecIssues(z.strictObject({ n: z.number().default(4) }), {})).toEqual({ ok: true, value: { n: 4 } });
  });
});
