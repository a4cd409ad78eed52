import { z } from 'zod';

import { chatMessageSchema, SpecIssue, threadMessageInputSchema } from '../../common/chat';
import { assistantInvokeBodySchema, invokeBodyJsonSchema, InvokeKind, parseInvokeBody, promptInvokeBodySchema } from './invoke-body.schema';

function expectSpecShape(issues: SpecIssue[]): void {
  expect(issues.length).toBeGreaterThan(0);
  for (const issue of issues) {
    expect(Object.keys(issue).sort()).toEqual(['code', 'keys', 'message', 'path']);
    expect(['unrecognized_keys', 'invalid_type']).toContain(issue.code);
    for (const part of [...issue.keys, ...issue.path]) expect(typeof part).toBe('string');
    expect(issue.message.length).toBeGreaterThan(0);
  }
}

function issuesOf(body: unknown, kind: InvokeKind = 'assistant', declaredVariables: string[] = []): SpecIssue[] {
  const result = parseInvokeBody(body, { kind, declaredVariables });
  if (result.ok) throw new Error(`expected a failure for ${JSON.stringify(body)}`);
  expectSpecShape(result.issues);
  return result.issues;
}

/** One field's single issue, as [code, keys, path, message]; the template declares `topic`. */
function only(body: unknown): [string, string[], string[], string] {
  const issues = issuesOf(body, 'assistant', ['topic']);
  expect(issues).toHaveLength(1);
  const [issue] = issues;
  return [issue.code, issue.keys, issue.path, issue.message];
}

describe('parseInvokeBody', () => {
  it('reports an undeclared variable exactly as the spec example', () => {
    expect(issuesOf({ variables: { name: 'Ann' } }, 'prompt', ['topic'])).toEqual([
      {
        code: 'unrecognized_keys',
        keys: ['name'],
        path: ['variables'],
        message: 'Unrecognized key "name" at "variables": the template declares "topic"',
      },
    ]);
  });

  it('accepts declared variables', () => {
    expect(parseInvokeBody({ variables: { topic: 'tea' } }, { kind: 'prompt', declaredVariables: ['topic'] })).toEqual({
      ok: true,
      value: { variables: { topic: 'tea' } },
    });
  });

  it('accepts a full valid assistant body and keeps every value, filling image detail', () => {
    const body = {
      threadId: '0190f1a2-0000-7000-8000-000000000001',
      variables: { topic: 'tea', tone: '' },
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'hi' },
            { type: 'image_url', image_url: { url: 'https://x.invalid/i.png' } },
          ],
        },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
        { role: 'tool', content: 'ok', tool_call_id: 'c1' },
      ],
      stream: false,
      model: 'echo',
      max_tokens: 200,
      temperature: 0,
      top_p: 1,
      presence_penalty: -2,
      frequency_penalty: 2,
      template: [{ role: 'system', content: 'Be brief about {{topic}}.' }],
      tool_choice: { type: 'function', function: { name: 'f' } },
      response_format: { type: 'json_object' },
      user: 'user-42',
      doNotRecord: true,
      metadata: { source: 'test', attempt: 3 },
      seed: -7,
    };
    const result = parseInvokeBody(body, { kind: 'assistant', declaredVariables: ['topic', 'tone'] });
    const expected = structuredClone(body);
    (expected.messages[0].content as Array<Record<string, unknown>>)[1] = {
      type: 'image_url',
      image_url: { url: 'https://x.invalid/i.png', detail: 'auto' },
    };
    expect(result).toEqual({ ok: true, value: expected });
  });

  it('accepts an empty or missing body and each tool_choice keyword', () => {
    expect(parseInvokeBody({}, { kind: 'prompt', declaredVariables: [] })).toEqual({ ok: true, value: {} });
    expect(parseInvokeBody(undefined, { kind: 'assistant', declaredVariables: [] })).toEqual({ ok: true, value: {} });
    for (const choice of ['auto', 'required', 'none']) {
      expect(parseInvokeBody({ tool_choice: choice }, { kind: 'prompt', declaredVariables: [] })).toEqual({
        ok: true,
        value: { tool_choice: choice },
      });
    }
  });

  it('treats threadId sent to a prompt as an unrecognized key', () => {
    expect(issuesOf({ threadId: 't1', stream: true }, 'prompt')).toEqual([
      { code: 'unrecognized_keys', keys: ['threadId'], path: [], message: 'Unrecognized key "threadId"' },
    ]);
  });

  it.each([
    ['a JSON array', [1, 2], 'Expected object, received array'],
    ['a string', 'hello', 'Expected object, received string "hello"'],
    ['null', null, 'Expected object, received null'],
  ])('rejects a body that is %s with one issue at the root', (_what, body, message) => {
    expect(issuesOf(body)).toEqual([{ code: 'invalid_type', keys: [], path: [], message }]);
  });

  describe('unknown keys, with their path', () => {
    it.each([
      ['root', { n: 2, stream: true }, ['n'], []],
      [
        'a message',
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
        { messages: [{ role: 'user', content: [{ type: 'text', text: 'a', cache: 1 }] }] },
        ['cache'],
        ['messages', '0', 'content', '0'],
      ],
      ['a template message', { template: [{ role: 'system', content: 's', weight: 1 }] }, ['weight'], ['template', '0']],
      [
        'a tool call',
        {
          messages: [
            {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '' }, index: 0 }],
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
              tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '', strict: true } }],
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
      ['response_format', { response_format: { type: 'json_object', schema: {} } }, ['schema'], ['response_format']],
    ])('inside %s', (_where, body, keys, path) => {
      const [code, gotKeys, gotPath, message] = only(body);
      expect([code, gotKeys, gotPath]).toEqual(['unrecognized_keys', keys, path]);
      expect(message).toContain(`"${keys[0]}"`);
    });
  });

  describe('wrong values, as invalid_type with a message of what was expected and what came', () => {
    it.each([
      ['temperature "hot"', { temperature: 'hot' }, ['temperature'], 'Expected number at "temperature", received string "hot"'],
      ['temperature 3', { temperature: 3 }, ['temperature'], 'Expected number between 0 and 2 at "temperature", received 3'],
      ['top_p 1.5', { top_p: 1.5 }, ['top_p'], 'Expected number between 0 and 1 at "top_p", received 1.5'],
      [
        'presence_penalty -3',
        { presence_penalty: -3 },
        ['presence_penalty'],
        'Expected number between -2 and 2 at "presence_penalty", received -3',
      ],
      ['max_tokens -1', { max_tokens: -1 }, ['max_tokens'], 'Expected integer >= 1 at "max_tokens", received -1'],
      ['max_tokens 2.5', { max_tokens: 2.5 }, ['max_tokens'], 'Expected integer at "max_tokens", received 2.5'],
      ['seed 0.5', { seed: 0.5 }, ['seed'], 'Expected integer at "seed", received 0.5'],
      ['stream "yes"', { stream: 'yes' }, ['stream'], 'Expected boolean at "stream", received string "yes"'],
      ['doNotRecord 1', { doNotRecord: 1 }, ['doNotRecord'], 'Expected boolean at "doNotRecord", received number 1'],
      [
        'metadata value object',
        { metadata: { a: { b: 1 } } },
        ['metadata', 'a'],
        'Expected string or number at "metadata.a", received object',
      ],
      ['metadata an array', { metadata: ['a'] }, ['metadata'], 'Expected object at "metadata", received array'],
      [
        'variables value number',
        { variables: { topic: 5 } },
        ['variables', 'topic'],
        'Expected string at "variables.topic", received number 5',
      ],
      ['messages not an array', { messages: { role: 'user' } }, ['messages'], 'Expected array at "messages", received object'],
      [
        'role robot',
        { messages: [{ role: 'robot', content: 'x' }] },
        ['messages', '0', 'role'],
        'Expected one of "assistant", "user", "system", "function", "tool" at "messages.0.role", received "robot"',
      ],
      [
        'content missing',
        { messages: [{ role: 'user' }] },
        ['messages', '0', 'content'],
        'Missing required field "messages.0.content": expected string, array of content parts or null',
      ],
      [
        'null content without calls',
        { template: [{ role: 'system', content: null }] },
        ['template', '0', 'content'],
        'Expected string or array of content parts (null only with tool_calls or function_call) at "template.0.content", received null',
      ],
      [
        'response_format text',
        { response_format: { type: 'text' } },
        ['response_format', 'type'],
        'Expected "json_object" at "response_format.type", received "text"',
      ],
      [
        'tool_choice unknown word',
        { tool_choice: 'always' },
        ['tool_choice'],
        'Expected "auto", "required", "none" or {type: "function", function: {name}} at "tool_choice", received string "always"',
      ],
      [
        'tool_choice function name missing',
        { tool_choice: { type: 'function', function: {} } },
        ['tool_choice', 'function', 'name'],
        'Missing required field "tool_choice.function.name": expected string',
      ],
    ])('%s', (_what, body, path, message) => {
      expect(only(body)).toEqual(['invalid_type', [], path, message]);
    });
  });

  it('reports every problem of one body in one call', () => {
    const issues = issuesOf(
      {
        threadId: 7,
        variables: { topic: 'tea', name: 'Ann', extra: 1 },
        messages: [{ role: 'robot', content: [{ type: 'text', text: 'a', bold: true }] }],
        temperature: 3,
        stream: 'yes',
        response_format: { type: 'text' },
        mode: 'fast',
      },
      'assistant',
      ['topic'],
    );
    expect(issues.map((i) => [i.code, i.keys, i.path])).toEqual([
      ['invalid_type', [], ['threadId']],
      ['invalid_type', [], ['variables', 'extra']],
      ['invalid_type', [], ['messages', '0', 'role']],
      ['unrecognized_keys', ['bold'], ['messages', '0', 'content', '0']],
      ['invalid_type', [], ['stream']],
      ['invalid_type', [], ['temperature']],
      ['invalid_type', [], ['response_format', 'type']],
      ['unrecognized_keys', ['mode'], []],
      ['unrecognized_keys', ['name', 'extra'], ['variables']],
    ]);
    expect(issues[8].message).toBe('Unrecognized keys "name", "extra" at "variables": the template declares "topic"');
  });

  it('reports an unknown key and a null content of the same message together', () => {
    expect(issuesOf({ messages: [{ role: 'user', content: null, weight: 2 }] }).map((i) => [i.code, i.path.join('.')])).toEqual([
      ['unrecognized_keys', 'messages.0'],
      ['invalid_type', 'messages.0.content'],
    ]);
  });
});

describe('invokeBodyJsonSchema', () => {
  it('describes the assistant body, with threadId only there', () => {
    const assistant = invokeBodyJsonSchema('assistant') as {
      type: string;
      properties: Record<string, unknown>;
      additionalProperties: boolean;
    };
    const prompt = invokeBodyJsonSchema('prompt') as { properties: Record<string, unknown> };
    expect(assistant.type).toBe('object');
    expect(assistant.additionalProperties).toBe(false);
    expect(Object.keys(assistant.properties)).toEqual(['threadId', ...Object.keys(prompt.properties)]);
    expect(Object.keys(prompt.properties)).not.toContain('threadId');
    expect(assistant.properties.temperature).toEqual({ type: 'number', minimum: 0, maximum: 2 });
  });

  it('returns a copy each time, so a caller mutating it cannot corrupt the next', () => {
    const first = invokeBodyJsonSchema('prompt');
    first.type = 'broken';
    expect(invokeBodyJsonSchema('prompt').type).toBe('object');
  });

  it('converts every schema to every JSON Schema target without throwing', () => {
    const schemas: z.ZodType[] = [assistantInvokeBodySchema, promptInvokeBodySchema, chatMessageSchema, threadMessageInputSchema];
    for (const schema of schemas) {
      for (const target of ['draft-2020-12', 'draft-07', 'draft-04', 'openapi-3.0'] as const) {
        for (const io of ['input', 'output'] as const) {
          expect(() => z.toJSONSchema(schema, { target, io })).not.toThrow();
        }
      }
    }
  });
});
