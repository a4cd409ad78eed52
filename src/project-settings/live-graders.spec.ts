import { createHash } from 'node:crypto';

import { newId } from '../common/ids';
import { LiveGrader, liveGraderProblem, liveGradersSchema, sampledGraders, samplePoint } from './live-graders';

const call = { prompt: 'reply', environment: 'production' };

describe('live graders: sampling a call', () => {
  it("a log's point is the first 48 bits of the SHA-256 of its id, in [0, 1), the same every time", () => {
    const id = '0198c0de-0000-7000-8000-000000000001';
    const expected = parseInt(createHash('sha256').update(id).digest('hex').slice(0, 12), 16) / 2 ** 48;
    expect(samplePoint(id)).toBe(expected);
    expect(samplePoint(id)).toBe(samplePoint(id));
    expect(samplePoint(id)).not.toBe(samplePoint('0198c0de-0000-7000-8000-000000000002'));
  });

  it('time-ordered ids spread evenly: a share of 0.3 takes 30 % of 20,000 calls (± 1.5 points)', () => {
    const points = Array.from({ length: 20_000 }, () => samplePoint(newId()));
    expect(points.every((point) => point >= 0 && point < 1)).toBe(true);
    const taken = points.filter((point) => point < 0.3).length / points.length;
    expect(Math.abs(taken - 0.3)).toBeLessThan(0.015);
    // Each tenth of [0, 1) holds about a tenth of them.
    for (let decile = 0; decile < 10; decile++) {
      const share = points.filter((point) => Math.floor(point * 10) === decile).length / points.length;
      expect(Math.abs(share - 0.1)).toBeLessThan(0.01);
    }
  });

  it("an entry matches the call's prompt and environment, or any when it names none; the share compares with the point", () => {
    const entries: LiveGrader[] = [
      { grader: 'everywhere', share: 1 },
      { grader: 'other-prompt', share: 1, prompt: 'summary' },
      { grader: 'other-env', share: 1, environment: 'staging' },
      { grader: 'this-one', share: 1, prompt: 'reply', environment: 'production' },
      { grader: 'half', share: 0.5, prompt: 'reply' },
    ];
    expect(sampledGraders(entries, call, () => 0.49)).toEqual(['everywhere', 'this-one', 'half']);
    expect(sampledGraders(entries, call, () => 0.5)).toEqual(['everywhere', 'this-one']);
    expect(sampledGraders(entries, { prompt: 'summary', environment: 'staging' }, () => 0.99)).toEqual([
      'everywhere',
      'other-prompt',
      'other-env',
    ]);
  });

  it('a grader in several matching entries is named once; one point serves every entry, so smaller shares take subsets', () => {
    const entries: LiveGrader[] = [
      { grader: 'json', share: 0.2 },
      { grader: 'json', share: 0.6, prompt: 'reply' },
      { grader: 'judge', share: 0.1 },
    ];
    expect(sampledGraders(entries, call, () => 0.4)).toEqual(['json']);
    expect(sampledGraders(entries, call, () => 0.05)).toEqual(['json', 'judge']);
    const ids = Array.from({ length: 2000 }, () => newId());
    const judged = ids.filter((id) => sampledGraders(entries, call, () => samplePoint(id)).includes('judge'));
    expect(judged.every((id) => sampledGraders(entries, call, () => samplePoint(id)).includes('json'))).toBe(true);
  });

  it('no hash for a call no entry names, nor without entries', () => {
    const pointOf = jest.fn(() => 0);
    expect(sampledGraders([{ grader: 'json', share: 1, prompt: 'summary' }], call, pointOf)).toEqual([]);
    expect(sampledGraders([], call, pointOf)).toEqual([]);
    expect(pointOf).not.toHaveBeenCalled();
    sampledGraders(
      [
        { grader: 'a', share: 1 },
        { grader: 'b', share: 1 },
      ],
      call,
      pointOf,
    );
    expect(pointOf).toHaveBeenCalledTimes(1);
  });
});

describe('live graders: the setting and the graders it may name', () => {
  it('takes up to 20 entries of a grader, a share in (0, 1] and optional slugs; refuses anything else', () => {
    const ok = (value: unknown) => liveGradersSchema.safeParse(value).success;
    expect(ok([])).toBe(true);
    expect(
      ok([
        { grader: 'json', share: 1 },
        { grader: 'judge', share: 0.001, prompt: 'reply', environment: 'production' },
      ]),
    ).toBe(true);
    expect(ok(Array.from({ length: 20 }, () => ({ grader: 'json', share: 0.5 })))).toBe(true);
    expect(ok(Array.from({ length: 21 }, () => ({ grader: 'json', share: 0.5 })))).toBe(false);
    for (const share of [0, -0.1, 1.01, '0.5', null]) expect(ok([{ grader: 'json', share }])).toBe(false);
    expect(ok([{ share: 0.5 }])).toBe(false);
    expect(ok([{ grader: 'Not A Slug', share: 0.5 }])).toBe(false);
    expect(ok([{ grader: 'json', share: 0.5, prompt: 'Reply!' }])).toBe(false);
    expect(ok([{ grader: 'json', share: 0.5, model: 'x' }])).toBe(false);
    expect(ok({ grader: 'json', share: 0.5 })).toBe(false);
  });

  it('refuses the checks that would compare with an expected output a live call does not have, and accepts the rest', () => {
    expect(liveGraderProblem('exact', 'equals', { ignoreCase: false })).toBe(
      '"exact" is an equals grader without a `value` of its own: it compares with a dataset item\'s expected output, which a live call does not have',
    );
    expect(liveGraderProblem('exact', 'equals', { value: 'yes' })).toBeNull();
    expect(liveGraderProblem('has', 'contains', {})).toMatch(/^"has" is a contains grader without a `values` of its own/);
    expect(liveGraderProblem('has', 'contains', { values: ['a'] })).toBeNull();
    expect(liveGraderProblem('path', 'json_path', { path: '$.a' })).toMatch(/without a `value` of its own/);
    expect(liveGraderProblem('path', 'json_path', { path: '$.a', value: null })).toMatch(/without a `value` of its own/);
    expect(liveGraderProblem('path', 'json_path', { path: '$.a', value: false })).toBeNull();
    for (const type of ['regex', 'json_schema', 'tool_call', 'latency', 'cost', 'model'])
      expect(liveGraderProblem('g', type, {})).toBeNull();
    expect(liveGraderProblem('crit', 'openai', {})).toBe('"crit" is a grader of type openai, which cannot grade live calls');
  });
});
