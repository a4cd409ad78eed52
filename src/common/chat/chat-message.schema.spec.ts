import { z } from 'zod';

import { ChatMessage, chatMessageSchema, contentPartSchema } from './chat-message.schema';
import { threadMessageInputSchema } from './thread-message-input.schema';
import { parseWithSpecIssues, SpecIssue } from './zod-issues';

function expectSpecShape(issues: SpecIssue[]): void {
  expect(issues.length).toBeGreaterThan(0);
  for (const issue of issues) {
    expect(Object.keys(issue).sort()).toEqual(['code', 'keys', 'message', 'path']);
    expect(['unrecognized_keys', 'invalid_type']).toContain(issue.code);
    for (const part of [...issue.keys, ...issue.path]) expect(typeof part).toBe('string');
    expect(issue.message.length).toBeGreaterThan(0);
  }
}

function issuesOf(schema: z.ZodType, input: unknown): SpecIssue[] {
  const result = parseWithSpecIssues(schema, input);
  if (result.ok) throw new Error(`expected a failure for ${JSON.stringify(input)}`);
  expectSpecShape(result.issues);
  return result.issues;
}

function valueOf<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = parseWithSpecIssues(schema, input);
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return result.value;
}

describe('chatMessageSchema', () => {
  it('accepts every field of the message object and keeps the values', () => {
    const message = {
      role: 'assistant',
      name: 'helper',
      content: [
        { type: 'text', text: 'look' },
        { type: 'image_url', image_url: { url: 'https://example.invalid/a.png', detail: 'high' } },
      ],
      function_call: { name: 'f', arguments: '{"a":1}' },
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'g', arguments: '{}' } }],
      tool_choice: { type: 'function', function: { name: 'g' } },
      tool_call_id: 'call_0',
    };
    expect(valueOf(chatMessageSchema, message)).toEqual(message);
  });

  it('fills image detail with "auto" when left out', () => {
    const parsed: ChatMessage = valueOf(chatMessageSchema, {
      role: 'user',
      content: [{ type: 'image_url', image_url: { url: 'u' } }],
    });
    expect(parsed.content).toEqual([{ type: 'image_url', image_url: { url: 'u', detail: 'auto' } }]);
  });

  it('accepts null content alongside tool_calls or function_call', () => {
    const withTools = {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '' } }],
    };
    const withFunction = { role: 'assistant', content: null, function_call: { name: 'f', arguments: '{}' } };
    expect(valueOf(chatMessageSchema, withTools)).toEqual(withTools);
    expect(valueOf(chatMessageSchema, withFunction)).toEqual(withFunction);
  });

  it('rejects null content without calls', () => {
    expect(issuesOf(chatMessageSchema, { role: 'user', content: null })).toEqual([
      {
        code: 'invalid_type',
        keys: [],
        path: ['content'],
        message: 'Expected string or array of content parts (null only with tool_calls or function_call) at "content", received null',
      },
    ]);
  });

  it('requires the content key and a known role', () => {
    expect(issuesOf(chatMessageSchema, { role: 'robot' })).toEqual([
      {
        code: 'invalid_type',
        keys: [],
        path: ['role'],
        message: 'Expected one of "assistant", "user", "system", "function", "tool" at "role", received "robot"',
      },
      {
        code: 'invalid_type',
        keys: [],
        path: ['content'],
        message: 'Missing required field "content": expected string, array of content parts or null',
      },
    ]);
  });

  it('explains a content of the wrong kind', () => {
    expect(issuesOf(chatMessageSchema, { role: 'user', content: 42 })).toEqual([
      {
        code: 'invalid_type',
        keys: [],
        path: ['content'],
        message: 'Expected string, array of content parts or null at "content", received number 42',
      },
    ]);
  });

  it('reports unknown keys at each level with its path', () => {
    const issues = issuesOf(chatMessageSchema, {
      role: 'assistant',
      content: [
        { type: 'text', text: 'a', bold: true },
        { type: 'image_url', image_url: { url: 'u', size: 1 } },
      ],
      tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '', strict: true }, index: 0 }],
      tool_choice: { type: 'function', function: { name: 'f' }, force: true },
      audio: null,
    });
    expect(issues.map((i) => [i.code, i.keys, i.path])).toEqual([
      ['unrecognized_keys', ['bold'], ['content', '0']],
      ['unrecognized_keys', ['size'], ['content', '1', 'image_url']],
      ['unrecognized_keys', ['strict'], ['tool_calls', '0', 'function']],
      ['unrecognized_keys', ['index'], ['tool_calls', '0']],
      ['unrecognized_keys', ['force'], ['tool_choice']],
      ['unrecognized_keys', ['audio'], []],
    ]);
    expect(issues[0].message).toBe('Unrecognized key "bold" at "content.0"');
  });

  it('reports a bad part inside an array content, not just "no union branch matched"', () => {
    expect(issuesOf(chatMessageSchema, { role: 'user', content: ['hi', { type: 'video', url: 'v' }] })).toEqual([
      { code: 'invalid_type', keys: [], path: ['content', '0'], message: 'Expected object at "content.0", received string "hi"' },
      {
        code: 'invalid_type',
        keys: [],
        path: ['content', '1', 'type'],
        message: 'Expected "text" or "image_url" at "content.1.type", received "video"',
      },
    ]);
  });

  it('requires the inner fields of function_call and tool_calls', () => {
    const issues = issuesOf(chatMessageSchema, {
      role: 'assistant',
      content: null,
      function_call: { name: 'f' },
      tool_calls: [{ id: 'c', type: 'tool', function: { arguments: '{}' } }],
    });
    expect(issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['function_call.arguments', 'Missing required field "function_call.arguments": expected string'],
      ['tool_calls.0.type', 'Expected "function" at "tool_calls.0.type", received "tool"'],
      ['tool_calls.0.function.name', 'Missing required field "tool_calls.0.function.name": expected string'],
    ]);
  });

  it('rejects tool_choice "required" inside a message (only "auto" or "none" there)', () => {
    expect(issuesOf(chatMessageSchema, { role: 'user', content: 'x', tool_choice: 'required' })).toEqual([
      {
        code: 'invalid_type',
        keys: [],
        path: ['tool_choice'],
        message: 'Expected "auto", "none" or {type: "function", function: {name}} at "tool_choice", received string "required"',
      },
    ]);
  });

  it('rejects an image detail outside auto/low/high', () => {
    expect(issuesOf(contentPartSchema, { type: 'image_url', image_url: { url: 'u', detail: 'max' } })).toEqual([
      {
        code: 'invalid_type',
        keys: [],
        path: ['image_url', 'detail'],
        message: 'Expected one of "auto", "low", "high" at "image_url.detail", received "max"',
      },
    ]);
  });
});

describe('threadMessageInputSchema', () => {
  it('defaults role to user and keeps the other fields', () => {
    expect(valueOf(threadMessageInputSchema, { content: 'hello', name: 'ann' })).toEqual({ role: 'user', content: 'hello', name: 'ann' });
  });

  it('accepts null content without calls and any of the five roles', () => {
    expect(valueOf(threadMessageInputSchema, { role: 'tool', content: null, tool_call_id: 'c1' })).toEqual({
      role: 'tool',
      content: null,
      tool_call_id: 'c1',
    });
  });

  it('treats function_call and other unlisted fields as unrecognized keys', () => {
    expect(issuesOf(threadMessageInputSchema, { content: 'x', function_call: { name: 'f', arguments: '' } })).toEqual([
      { code: 'unrecognized_keys', keys: ['function_call'], path: [], message: 'Unrecognized key "function_call"' },
    ]);
  });

  it('requires the content key', () => {
    expect(issuesOf(threadMessageInputSchema, { role: 'user' })).toEqual([
      {
        code: 'invalid_type',
        keys: [],
        path: ['content'],
        message: 'Missing required field "content": expected string, array of content parts or null',
      },
    ]);
  });
});
