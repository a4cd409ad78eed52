import {
  fuzzyRatio,
  gradeDeterministic,
  judgedResult,
  labelOf,
  lcsLength,
  type ModelCriterion,
  renderTemplate,
  reportedScore,
  templateProblem,
} from './criteria';
import { criteriaRefusal, targetOfModelName } from './criteria-check';

/** The textbook O(n·m) dynamic programme the bit-parallel LCS is checked against. */
function naiveLcs(a: string, b: string): number {
  let previous = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    const row = [0];
    for (let j = 1; j <= b.length; j++) row[j] = a[i - 1] === b[j - 1] ? previous[j - 1] + 1 : Math.max(previous[j], row[j - 1]);
    previous = row;
  }
  return previous[b.length];
}

/** A deterministic pseudo-random text over a small alphabet (many matches, so carries cross words). */
function text(seed: number, length: number, alphabet = 'abcab '): string {
  let state = seed;
  let out = '';
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    out += alphabet[state % alphabet.length];
  }
  return out;
}

const context = { item: { expected: 'Paris', n: 3, tags: ['a', 'b'], nested: { city: 'Oslo' } }, sample: { output_text: 'Paris' } };
const check = (operation: 'eq' | 'ne' | 'like' | 'ilike', input: string, reference: string) =>
  gradeDeterministic({ id: 'c', type: 'string_check', name: 'c', operation, input, reference }, context).passed;

describe('OpenAI testing criteria as Parley grades them', () => {
  it('computes the LCS bit-parallel exactly as the dynamic programme, across 32-bit words', () => {
    for (let seed = 1; seed <= 60; seed++) {
      const a = text(seed, (seed * 7) % 150);
      const b = text(seed + 1000, (seed * 13) % 170);
      expect([seed, lcsLength(a, b)]).toEqual([seed, naiveLcs(a, b)]);
    }
    expect(lcsLength('kitten', 'sitting')).toBe(4);
    expect(lcsLength('', 'abc')).toBe(0);
  });

  it("scores fuzzy_match as the InDel ratio 2·LCS/(|a|+|b|), rapidfuzz's fuzz.ratio", () => {
    expect(fuzzyRatio('kitten', 'sitting')).toBeCloseTo(8 / 13, 12);
    expect(fuzzyRatio('Paris', 'Paris')).toBe(1);
    expect(fuzzyRatio('', '')).toBe(1);
    expect(fuzzyRatio('abc', 'xyz')).toBe(0);
    const started = Date.now();
    expect(fuzzyRatio(text(1, 25_000), text(2, 25_000))).toBeGreaterThan(0.5);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('text_similarity passes at pass_threshold, and does not compare texts past the bound', () => {
    const similarity = (input: string, pass_threshold: number) =>
      gradeDeterministic(
        { id: 's', type: 'text_similarity', name: 's', evaluation_metric: 'fuzzy_match', input, reference: 'Paris', pass_threshold },
        context,
      );
    expect(similarity('Pariss', 0.9)).toMatchObject({ score: 0.909091, passed: true });
    expect(similarity('Pariss', 0.95)).toMatchObject({ score: 0.909091, passed: false });
    expect(similarity('x'.repeat(25_001), 0)).toMatchObject({ score: 0, passed: false });
  });

  it('string_check: eq and ne exactly, like contains, ilike contains ignoring case', () => {
    expect(check('eq', '{{sample.output_text}}', '{{item.expected}}')).toBe(true);
    expect(check('eq', '{{sample.output_text}} ', '{{item.expected}}')).toBe(false);
    expect(check('ne', '{{sample.output_text}}', 'paris')).toBe(true);
    expect(check('like', 'The capital is {{sample.output_text}}.', 'Paris')).toBe(true);
    expect(check('like', 'the capital is paris', 'Paris')).toBe(false);
    expect(check('ilike', 'the capital is paris', '{{item.expected}}')).toBe(true);
  });

  it('renders item and sample references: text as is, numbers as written, objects as JSON, a missing one as ""', () => {
    expect(
      renderTemplate('{{ item.n }}|{{item.tags}}|{{item.tags[1]}}|{{item.nested.city}}|{{item.none}}|{{sample.output_text}}', context),
    ).toBe('3|["a","b"]|b|Oslo||Paris');
    expect(renderTemplate('{{item.constructor}}{{item.__proto__}}', context)).toBe('');
    expect(templateProblem('{{item.a}} and {{sample.output_text}}')).toBeNull();
    expect(templateProblem('{{input}}')).toMatch(/"\{\{input\}\}" is not a reference/);
    expect(templateProblem('{{item.a')).toMatch(/unclosed/);
  });

  it("reads a label_model's answer: its first word if a label, else the label named earliest", () => {
    expect(labelOf('Correct. It names Paris.', ['correct', 'incorrect'])).toBe('correct');
    expect(labelOf('I would say incorrect, not correct', ['correct', 'incorrect'])).toBe('incorrect');
    expect(labelOf('no idea', ['yes', 'no'])).toBe('no');
    expect(labelOf('maybe', ['yes', 'no'])).toBeNull();
    const label: ModelCriterion = {
      id: 'l',
      type: 'label_model',
      name: 'l',
      model: 'local/echo',
      input: [{ role: 'user', content: 'x' }],
      labels: ['yes', 'no'],
      passing_labels: ['yes'],
    };
    expect(judgedResult(label, 'yes, it is')).toMatchObject({ score: 1, passed: true });
    expect(judgedResult(label, 'no')).toMatchObject({ score: 0, passed: false });
    expect(judgedResult(label, 'perhaps')).toMatchObject({
      score: 0,
      passed: false,
      reason: 'the judge named none of the labels: perhaps',
    });
  });

  it("reads a score_model's number in its range, passes at pass_threshold, and reports it in the range", () => {
    const score = (range?: number[], pass_threshold?: number): ModelCriterion => ({
      id: 's',
      type: 'score_model',
      name: 's',
      model: 'local/echo',
      input: [{ role: 'user', content: 'x' }],
      range,
      pass_threshold,
    });
    expect(judgedResult(score([1, 7], 5), '6 - good')).toMatchObject({ score: 0.833333, passed: true });
    expect(judgedResult(score([1, 7], 5), '4')).toMatchObject({ score: 0.5, passed: false });
    expect(judgedResult(score([0, 10], 5), '42')).toMatchObject({ score: 1, passed: true });
    expect(judgedResult(score(), '0.5')).toMatchObject({ score: 0.5, passed: true });
    expect(judgedResult(score(), 'none')).toMatchObject({ score: 0, passed: false });
    expect(reportedScore(score([1, 7]), 0.5)).toBe(4);
  });

  it('refuses what does not map, naming the parameter', () => {
    const base = { name: 'x', input: '{{sample.output_text}}', reference: '{{item.expected}}' };
    expect(criteriaRefusal([{ type: 'text_similarity', evaluation_metric: 'bleu', pass_threshold: 0.5, ...base }])).toEqual({
      param: 'testing_criteria[0].evaluation_metric',
      message: 'evaluation_metric "bleu" is not supported: Parley computes fuzzy_match only',
    });
    expect(
      criteriaRefusal([
        { type: 'string_check', operation: 'eq', ...base },
        { type: 'python', name: 'p' },
      ])?.param,
    ).toBe('testing_criteria[1].type');
    expect(criteriaRefusal([{ type: 'string_check', operation: 'eq', ...base, reference: '{{expected}}' }])?.param).toBe(
      'testing_criteria[0].reference',
    );
    const judge = { type: 'label_model' as const, name: 'j', model: 'local/echo', labels: ['a'], passing_labels: ['a'] };
    expect(criteriaRefusal([{ ...judge, input: [{ role: 'user', content: { type: 'input_image', image_url: 'x' } }] }])?.param).toBe(
      'testing_criteria[0].input[0].content',
    );
    expect(criteriaRefusal([{ ...judge, input: [{ role: 'user', content: 'x' }], passing_labels: ['b'] }])?.param).toBe(
      'testing_criteria[0].passing_labels',
    );
  });

  it('reads a model name as a deployment or a provider/model', () => {
    expect(targetOfModelName('capitals@production')).toEqual({ type: 'deployment', slug: 'capitals', environment: 'production' });
    expect(targetOfModelName('capitals@staging:3')).toEqual({ type: 'deployment', slug: 'capitals', environment: 'staging', version: 3 });
    expect(targetOfModelName('local/echo')).toEqual({ type: 'provider', provider: 'local', model: 'echo' });
    expect(targetOfModelName('router/meta/llama')).toEqual({ type: 'provider', provider: 'router', model: 'meta/llama' });
    for (const bad of ['/echo', 'local/', 'a@b@c', 'a@', 'a@b:0']) expect(targetOfModelName(bad)).toBeUndefined();
  });
});
