import type { z } from 'zod';

import { invalidField } from './anthropic-errors';

type Issue = z.ZodError['issues'][number];

const pathOf = (path: ReadonlyArray<PropertyKey>) => path.map(String).join('.');

/**
 * The first problem of a body that failed validation, as Anthropic words it: `<path>: <problem>`
 * (`messages.0.content.1.type: ...`, `max_tokens: Field required`, `foo: Extra inputs are not
 * permitted`). A union (a string or blocks) reports the branch that got furthest into the input.
 */
export function problemOf(error: z.ZodError): { field: string; problem: string } {
  return describe(error.issues[0], []);
}

function describe(issue: Issue, prefix: PropertyKey[]): { field: string; problem: string } {
  const path = [...prefix, ...issue.path];
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0];
    const problem =
      key === 'cache_control' ? 'prompt caching (cache_control) is not supported by Parley' : 'Extra inputs are not permitted';
    return { field: pathOf([...path, key]), problem };
  }
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    const firsts = issue.errors.map((branch) => branch[0]).filter((first): first is Issue => first !== undefined);
    const deepest = firsts.reduce((best, first) => (first.path.length >= best.path.length ? first : best), firsts[0]);
    if (deepest.path.length > 0 || deepest.code !== 'invalid_type') return describe(deepest, path);
    const expected = firsts.map((first) => (first.code === 'invalid_type' ? first.expected : 'valid input'));
    return { field: pathOf(path), problem: `expected ${[...new Set(expected)].join(' or ')}` };
  }
  if (issue.code === 'invalid_type' && /received undefined$/.test(issue.message)) return { field: pathOf(path), problem: 'Field required' };
  return { field: pathOf(path), problem: issue.message };
}

/** Anthropic's 400 for that problem. */
export function invalidRequest(error: z.ZodError) {
  const { field, problem } = problemOf(error);
  return invalidField(field || 'body', problem);
}
