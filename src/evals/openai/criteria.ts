import type { TemplateMessage, TestingCriterionInput } from './openai-evals.schemas';

/**
 * OpenAI's testing criteria as Parley grades them (docs/evals.md, "OpenAI's Evals API"): the
 * templates over the `item` and `sample` namespaces, `string_check` and `text_similarity`
 * (`fuzzy_match`) computed here, and the reading of a `label_model`'s or `score_model`'s answer.
 * The judges' calls are made by OpenAICriteriaGrading.
 */

/** A criterion as stored with its eval: what was given, and its `id` (`<name>-<uuid>`, as OpenAI names it in results). */
export type Criterion = Exclude<TestingCriterionInput, { type: 'python' }> & { id: string };
export type ModelCriterion = Extract<Criterion, { type: 'label_model' | 'score_model' }>;

/** What templates read: the data source's `item`, and the `sample` (the output graded). */
export interface TemplateContext {
  item: Record<string, unknown>;
  sample: Record<string, unknown>;
}

export interface CriterionResult {
  /** In [0, 1]: what Parley's run totals and comparisons average. */
  score: number;
  passed: boolean;
  reason: string;
}

const REFERENCE = /\{\{\s*([^{}]*?)\s*\}\}/g;
const PATH = /^(item|sample)((?:\.[A-Za-z0-9_-]+|\[\d+\])*)$/;

/** `item.a[0].b` as its segments: ['item', 'a', 0, 'b']. */
function segmentsOf(path: string): (string | number)[] | null {
  const match = PATH.exec(path);
  if (!match) return null;
  const rest = [...match[2].matchAll(/\.([A-Za-z0-9_-]+)|\[(\d+)\]/g)].map((m) => (m[1] !== undefined ? m[1] : Number(m[2])));
  return [match[1], ...rest];
}

/** Why a template cannot be rendered (a `{{...}}` that names neither `item` nor `sample`), or null. */
export function templateProblem(text: string): string | null {
  for (const match of text.matchAll(REFERENCE))
    if (!segmentsOf(match[1])) return `"${match[0]}" is not a reference to the item or sample namespace (e.g. {{item.answer}})`;
  if (text.replace(REFERENCE, '').includes('{{')) return 'it holds an unclosed "{{"';
  return null;
}

/** A value as text in a template: text as it is, numbers and booleans as written, objects as JSON, nothing as "". */
export function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? '';
}

function lookup(context: TemplateContext, segments: (string | number)[]): unknown {
  let value: unknown = context;
  for (const segment of segments) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, segment)) return undefined;
    value = (value as Record<string | number, unknown>)[segment];
  }
  return value;
}

/** `{{item.x}}` and `{{sample.output_text}}` replaced by their values (a missing one by ""). */
export function renderTemplate(text: string, context: TemplateContext): string {
  return text.replace(REFERENCE, (whole, path: string) => {
    const segments = segmentsOf(path);
    return segments ? asText(lookup(context, segments)) : whole;
  });
}

/** A template message's text: its string, or its text parts joined by newlines; null when it holds an image or audio. */
export function messageText(content: TemplateMessage['content']): string | null {
  const parts = Array.isArray(content) ? content : [content];
  const texts: string[] = [];
  for (const part of parts) {
    if (typeof part === 'string') texts.push(part);
    else if (part.type === 'input_text' || part.type === 'output_text') texts.push(part.text);
    else return null;
  }
  return texts.join('\n');
}

/** A chat role of Parley's for OpenAI's: `developer` is sent as `system`. */
export const chatRole = (role: TemplateMessage['role']): 'user' | 'assistant' | 'system' => (role === 'developer' ? 'system' : role);

/** The longest text compared by fuzzy_match: the work grows with the product of the lengths. */
export const FUZZY_MAX_CHARS = 25_000;

/**
 * The length of the longest common subsequence of `a` and `b` (UTF-16 code units), bit-parallel
 * (Hyyrö's LCS bit-vector): the shorter text's positions are bits, each character of the longer
 * is one pass over ⌈m/32⌉ words.
 */
export function lcsLength(a: string, b: string): number {
  const [long, short] = a.length >= b.length ? [a, b] : [b, a];
  const m = short.length;
  if (m === 0) return 0;
  const words = Math.ceil(m / 32);
  const masks = new Map<number, Uint32Array>();
  for (let i = 0; i < m; i++) {
    const code = short.charCodeAt(i);
    let mask = masks.get(code);
    if (!mask) masks.set(code, (mask = new Uint32Array(words)));
    mask[i >>> 5] |= 1 << (i & 31);
  }
  const v = new Uint32Array(words).fill(0xffffffff);
  for (let j = 0; j < long.length; j++) {
    const mask = masks.get(long.charCodeAt(j));
    if (!mask) continue;
    let carry = 0;
    for (let k = 0; k < words; k++) {
      const word = v[k];
      const u = (word & mask[k]) >>> 0;
      const sum = word + u + carry;
      carry = sum > 0xffffffff ? 1 : 0;
      // V' = (V + U) | (V - U), and V - U = V & ~U since U's bits are V's.
      v[k] = ((sum >>> 0) | (word & ~u)) >>> 0;
    }
  }
  let zeros = 0;
  for (let i = 0; i < m; i++) if (((v[i >>> 5] >>> (i & 31)) & 1) === 0) zeros++;
  return zeros;
}

/** fuzzy_match: the InDel similarity, 2·LCS / (|a| + |b|) (rapidfuzz's `fuzz.ratio` / 100); 1 for two empty texts. */
export function fuzzyRatio(a: string, b: string): number {
  if (a.length + b.length === 0) return 1;
  return (2 * lcsLength(a, b)) / (a.length + b.length);
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;
const clip = (text: string, max = 80) => (text.length > max ? `${text.slice(0, max)}…` : text);

/** `string_check` and `text_similarity`, rendered over the item and the sample. */
export function gradeDeterministic(criterion: Extract<Criterion, { type: 'string_check' | 'text_similarity' }>, context: TemplateContext) {
  const input = renderTemplate(criterion.input, context);
  const reference = renderTemplate(criterion.reference, context);
  if (criterion.type === 'string_check') {
    const passed =
      criterion.operation === 'eq'
        ? input === reference
        : criterion.operation === 'ne'
          ? input !== reference
          : criterion.operation === 'like'
            ? input.includes(reference)
            : input.toLowerCase().includes(reference.toLowerCase());
    return { score: passed ? 1 : 0, passed, reason: `${criterion.operation}: "${clip(input)}" vs "${clip(reference)}"` };
  }
  if (Math.max(input.length, reference.length) > FUZZY_MAX_CHARS)
    return { score: 0, passed: false, reason: `not compared: a text is longer than ${FUZZY_MAX_CHARS} characters` };
  const score = round6(fuzzyRatio(input, reference));
  return { score, passed: score >= criterion.pass_threshold, reason: `fuzzy_match ${score} (pass at ${criterion.pass_threshold})` };
}

/** The label a judge answered: its first word if that is a label, else the label it names earliest (ignoring case); null when none. */
export function labelOf(answer: string, labels: string[]): string | null {
  const lower = answer.trim().toLowerCase();
  const first = lower.split(/\s+/)[0]?.replace(/[^\p{L}\p{N}_-]/gu, '') ?? '';
  const exact = labels.find((label) => label.toLowerCase() === first);
  if (exact !== undefined) return exact;
  const named = labels
    .map((label) => ({ label, at: lower.indexOf(label.toLowerCase()) }))
    .filter(({ at }) => at >= 0)
    .sort((x, y) => x.at - y.at);
  return named[0]?.label ?? null;
}

/** The [min, max] of a score_model (default [0, 1]) and the raw score that passes (default: the middle of the range). */
export function scoreScale(criterion: Extract<Criterion, { type: 'score_model' }>): { min: number; max: number; passAt: number } {
  const [min, max] = criterion.range ?? [0, 1];
  return { min, max, passAt: criterion.pass_threshold ?? (min + max) / 2 };
}

/** A judge's answer as the criterion's result: a label (1 when a passing one) or a number in the range (stored scaled to [0, 1]). */
export function judgedResult(criterion: ModelCriterion, answer: string): CriterionResult {
  const said = answer.trim() || '(empty)';
  if (criterion.type === 'label_model') {
    const label = labelOf(answer, criterion.labels);
    if (label === null) return { score: 0, passed: false, reason: `the judge named none of the labels: ${said}` };
    const passed = criterion.passing_labels.includes(label);
    return { score: passed ? 1 : 0, passed, reason: `label "${label}": ${said}` };
  }
  const { min, max, passAt } = scoreScale(criterion);
  const match = /-?\d+(?:\.\d+)?/.exec(answer);
  if (!match) return { score: 0, passed: false, reason: `the judge gave no score: ${said}` };
  const raw = Math.min(max, Math.max(min, Number(match[0])));
  return { score: round6((raw - min) / (max - min)), passed: raw >= passAt, reason: `score ${raw} (pass at ${passAt}): ${said}` };
}

/** The score as OpenAI reports it: a score_model's in its own range, every other criterion's as stored. */
export function reportedScore(criterion: Criterion | undefined, stored: number): number {
  if (criterion?.type !== 'score_model') return stored;
  const { min, max } = scoreScale(criterion);
  return round6(min + stored * (max - min));
}
