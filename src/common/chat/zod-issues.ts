import { z } from 'zod';

import { isPlainObject } from '../errors/request-body';

/**
 * One element of the spec's `issues` array (spec "Errors"): all four fields are always present.
 * `unrecognized_keys` is the only code kept from zod; every other problem is `invalid_type`.
 */
export interface SpecIssue {
  code: 'unrecognized_keys' | 'invalid_type';
  keys: string[];
  path: string[];
  message: string;
}

export type SpecParseResult<T> = { ok: true; value: T } | { ok: false; issues: SpecIssue[] };

type Issue = z.core.$ZodIssue;

/** Prefix that marks a schema-supplied error text as an expectation phrase (see `expects`). */
const EXPECTED = 'Expected ';

/**
 * Error param for a zod schema or check: `z.number().max(2, expects('number between 0 and 2'))`.
 * Zod only knows the bound that failed; this lets a schema say what it really wants, and
 * `toSpecIssues` still appends the location and the received value.
 */
export function expects(phrase: string): { error: string } {
  return { error: EXPECTED + phrase };
}

/**
 * Parses with `reportInput` on, so issues carry the received value, and converts failures.
 * Use this rather than `schema.safeParse` when the issues are shown to API callers.
 */
export function parseWithSpecIssues<S extends z.ZodType>(schema: S, input: unknown): SpecParseResult<z.output<S>> {
  const result = schema.safeParse(input, { reportInput: true });
  return result.success ? { ok: true, value: result.data } : { ok: false, issues: toSpecIssues(result.error) };
}

/** Maps zod issues (any zod 4 error; best messages when parsed with `reportInput: true`). */
export function toSpecIssues(error: z.ZodError | readonly Issue[]): SpecIssue[] {
  const issues = error instanceof z.ZodError ? error.issues : error;
  return issues.flatMap((issue) => mapIssue(issue, []));
}

function mapIssue(issue: Issue, prefix: PropertyKey[]): SpecIssue[] {
  const fullPath = [...prefix, ...issue.path];
  const path = fullPath.map(String);
  if (issue.code === 'unrecognized_keys') {
    const noun = issue.keys.length === 1 ? 'key' : 'keys';
    const message = `Unrecognized ${noun} ${quoteList(issue.keys)}${at(path)}`;
    return [{ code: 'unrecognized_keys', keys: [...issue.keys], path, message }];
  }
  if (issue.code === 'invalid_union') {
    // When the input plainly has the shape of one branch (e.g. `content` is an array), that
    // branch's own issues say far more than "matches none of the options".
    const branch = soleFittingBranch(issue);
    if (branch) return branch.flatMap((inner) => mapIssue(inner, fullPath));
  }
  return [{ code: 'invalid_type', keys: [], path, message: describeProblem(issue, path) }];
}

/** The only union branch whose issues are not a mismatch of the value as a whole, if exactly one. */
function soleFittingBranch(issue: Issue & { code: 'invalid_union' }): Issue[] | undefined {
  const fitting = issue.errors.filter((branch) => !branch.some(isRootMismatch));
  return fitting.length === 1 ? fitting[0] : undefined;
}

function isRootMismatch(issue: Issue): boolean {
  if (issue.path.length > 0) return false;
  if (issue.code === 'invalid_type' || issue.code === 'invalid_value') return true;
  return issue.code === 'invalid_union' && !soleFittingBranch(issue);
}

function describeProblem(issue: Issue, path: string[]): string {
  const hasInput = 'input' in issue;
  // A discriminated union reports at the discriminator's path but carries the whole object.
  let input: unknown = issue.input;
  if (issue.code === 'invalid_union' && issue.discriminator !== undefined) {
    input = isPlainObject(input) ? input[issue.discriminator] : undefined;
  }
  const expectation = expectationOf(issue);
  if (expectation === undefined) return issue.message + at(path);
  if (hasInput && input === undefined) {
    return path.length ? `Missing required field "${path.join('.')}": expected ${expectation}` : `Missing value: expected ${expectation}`;
  }
  if (!hasInput) return `Expected ${expectation}${at(path)}`;
  const received = showsValueOnly(issue) ? formatValue(input) : typeAndValue(input);
  return `Expected ${expectation}${at(path)}, received ${received}`;
}

/** Range, enum and format problems are about the value; type problems about the kind of thing. */
function showsValueOnly(issue: Issue): boolean {
  if (issue.code === 'invalid_type') return issue.expected === 'int';
  if (issue.code === 'invalid_union') return issue.discriminator !== undefined;
  return true;
}

/** What the schema wanted, as a phrase ("number", "one of ..."); undefined when zod says nothing usable. */
function expectationOf(issue: Issue): string | undefined {
  if (issue.message.startsWith(EXPECTED)) return issue.message.slice(EXPECTED.length);
  switch (issue.code) {
    case 'invalid_type':
      return ({ int: 'integer', record: 'object' } as Record<string, string>)[issue.expected] ?? issue.expected;
    case 'invalid_value':
      return issue.values.length === 1 ? formatValue(issue.values[0]) : `one of ${issue.values.map(formatValue).join(', ')}`;
    case 'too_big':
      return bound(issue.origin, issue.inclusive ? '<=' : '<', 'at most', issue.maximum);
    case 'too_small':
      return bound(issue.origin, issue.inclusive ? '>=' : '>', 'at least', issue.minimum);
    case 'not_multiple_of':
      return `multiple of ${issue.divisor}`;
    case 'invalid_format':
      return issue.format === 'regex' ? `string matching ${issue.pattern}` : `string in ${issue.format} format`;
    case 'invalid_union':
      if (issue.discriminator !== undefined && 'options' in issue && issue.options?.length) {
        return issue.options.map(formatValue).join(' or ');
      }
      return unionExpectation(issue.errors);
    default:
      return undefined;
  }
}

function bound(origin: string, op: string, words: string, limit: number | bigint): string {
  if (origin === 'array' || origin === 'set') return `${origin} with ${words} ${limit} item(s)`;
  if (origin === 'string') return `string with ${words} ${limit} character(s)`;
  return `${origin === 'int' ? 'integer' : origin} ${op} ${limit}`;
}

/** "string, array or null" from what each branch wanted at the root. */
function unionExpectation(branches: Issue[][]): string | undefined {
  const wanted = branches.map((branch) => {
    const root = branch.find((i) => i.path.length === 0);
    return root ? expectationOf(root) : undefined;
  });
  if (wanted.length === 0 || wanted.some((w) => w === undefined)) return undefined;
  const unique = [...new Set(wanted as string[])];
  return unique.length === 1 ? unique[0] : `${unique.slice(0, -1).join(', ')} or ${unique[unique.length - 1]}`;
}

function at(path: string[]): string {
  return path.length ? ` at "${path.join('.')}"` : '';
}

function quoteList(values: string[]): string {
  return values.map((v) => JSON.stringify(v)).join(', ');
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** "string \"hot\"", "number 5", "array", "null": enough to see what came without echoing big values. */
function typeAndValue(value: unknown): string {
  const type = typeName(value);
  return ['string', 'number', 'boolean'].includes(type) ? `${type} ${formatValue(value)}` : type;
}

const MAX_SHOWN = 40;

function formatValue(value: unknown): string {
  if (Array.isArray(value)) return `array of ${value.length} item(s)`;
  if (isPlainObject(value)) return 'object';
  if (typeof value === 'bigint') return String(value);
  const text = value === undefined ? 'undefined' : JSON.stringify(value);
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text;
}
