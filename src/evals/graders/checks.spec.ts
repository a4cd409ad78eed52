import { checkProblem, runCheck } from './checks';
import type { GradedOutput } from './grader.schema';

const out = (text: string, extra: Partial<GradedOutput> = {}): GradedOutput => ({
  text,
  toolCalls: [],
  latencyMs: 100,
  costUsd: 0.001,
  finishReason: 'stop',
  ...extra,
});

describe('deterministic checks', () => {
  it('equals compares trimmed text, optionally ignoring case, and JSON when the expected value is JSON', () => {
    expect(runCheck({ type: 'equals', ignoreCase: false }, out(' Paris '), 'Paris').score).toBe(1);
    expect(runCheck({ type: 'equals', ignoreCase: false }, out('paris'), 'Paris').score).toBe(0);
    expect(runCheck({ type: 'equals', ignoreCase: true }, out('paris'), 'Paris').score).toBe(1);
    expect(runCheck({ type: 'equals', ignoreCase: false }, out('{"a":[1,2]}'), { a: [1, 2] }).score).toBe(1);
    expect(runCheck({ type: 'equals', ignoreCase: false }, out('{"a":[2,1]}'), { a: [1, 2] }).score).toBe(0);
    expect(runCheck({ type: 'equals', ignoreCase: false }, out('x'), undefined).reason).toMatch(/no expected output/);
  });

  it('contains scores the share of values found', () => {
    const result = runCheck({ type: 'contains', values: ['a', 'b', 'c', 'd'], ignoreCase: false }, out('a b'), null);
    expect(result.score).toBe(0.5);
    expect(result.reason).toBe('missing: "c", "d"');
    expect(runCheck({ type: 'contains', ignoreCase: true }, out('The capital is PARIS.'), 'paris').score).toBe(1);
  });

  it('regex runs on RE2: a pattern that backtracks exponentially elsewhere ends at once', () => {
    const started = Date.now();
    const result = runCheck({ type: 'regex', pattern: '^(a+)+$', ignoreCase: false }, out(`${'a'.repeat(50_000)}!`), null);
    expect(result.score).toBe(0);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(runCheck({ type: 'regex', pattern: '\\d{3}', ignoreCase: false }, out('call 555 now'), null).score).toBe(1);
    expect(checkProblem({ type: 'regex', pattern: '(?<=a)b', ignoreCase: false })).toEqual(expect.any(String));
  });

  it('json_schema validates the output parsed as JSON', () => {
    const schema = { type: 'object', required: ['city'], properties: { city: { type: 'string', pattern: '^[A-Z]' } } };
    expect(runCheck({ type: 'json_schema', schema }, out('{"city":"Paris"}'), null).score).toBe(1);
    expect(runCheck({ type: 'json_schema', schema }, out('{"city":"paris"}'), null).reason).toMatch(/\/city/);
    expect(runCheck({ type: 'json_schema', schema }, out('not json'), null).reason).toBe('the output is not JSON');
    expect(checkProblem({ type: 'json_schema', schema: { type: 'nonsense' } })).toEqual(expect.any(String));
  });

  it('json_path compares the first value selected, with the expected output by default', () => {
    expect(runCheck({ type: 'json_path', path: '$.answer.city' }, out('{"answer":{"city":"Paris"}}'), 'Paris').score).toBe(1);
    expect(runCheck({ type: 'json_path', path: '$.n', value: 3 }, out('{"n":3}'), null).score).toBe(1);
    expect(runCheck({ type: 'json_path', path: '$.n', value: 3 }, out('{"n":4}'), null).score).toBe(0);
    expect(runCheck({ type: 'json_path', path: '$.missing', value: 1 }, out('{}'), null).reason).toBe('$.missing selects nothing');
  });

  it('json_path evaluates no script', () => {
    const path = '$..[?(@.constructor.constructor("return process")().exit())]';
    const result = runCheck({ type: 'json_path', path, value: 1 }, out('{"a":{"b":1}}'), null);
    expect(result).toEqual({ score: 0, reason: expect.stringMatching(/cannot be evaluated/) });
    expect(checkProblem({ type: 'json_path', path })).toBe('filter and script expressions are not supported');
  });

  it('tool_call needs a call of the tool, with arguments matching the schema when one is given', () => {
    const calls = [{ name: 'get_weather', arguments: '{"city":"Oslo"}' }];
    const schema = { type: 'object', required: ['city'] };
    expect(runCheck({ type: 'tool_call', name: 'get_weather' }, out('', { toolCalls: calls }), null).score).toBe(1);
    expect(runCheck({ type: 'tool_call', name: 'get_weather', arguments: schema }, out('', { toolCalls: calls }), null).score).toBe(1);
    const wrong = [{ name: 'get_weather', arguments: '{"town":"Oslo"}' }];
    expect(runCheck({ type: 'tool_call', name: 'get_weather', arguments: schema }, out('', { toolCalls: wrong }), null).score).toBe(0);
    expect(runCheck({ type: 'tool_call', name: 'book' }, out('', { toolCalls: calls }), null).reason).toBe(
      'no call of book (called: get_weather)',
    );
  });

  it('latency and cost compare with their limits; an unpriced call fails a cost limit', () => {
    expect(runCheck({ type: 'latency', maxMs: 100 }, out('x'), null).score).toBe(1);
    expect(runCheck({ type: 'latency', maxMs: 99 }, out('x'), null).score).toBe(0);
    expect(runCheck({ type: 'cost', maxUsd: 0.001 }, out('x'), null).score).toBe(1);
    expect(runCheck({ type: 'cost', maxUsd: 0.0005 }, out('x'), null).score).toBe(0);
    expect(runCheck({ type: 'cost', maxUsd: 1 }, out('x', { costUsd: null }), null).reason).toBe('the call has no known price');
  });
});
