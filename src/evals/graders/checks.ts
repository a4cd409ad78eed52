import { isDeepStrictEqual } from 'node:util';

import Ajv, { ValidateFunction } from 'ajv';
import { JSONPath } from 'jsonpath-plus';
import { RE2JS } from 're2js';

import type { GradedOutput, GraderConfig } from './grader.schema';

/**
 * The deterministic checks (docs/evals.md, "Graders"). Patterns are RE2 (linear time, so no output
 * or pattern can hold the event loop), JSON Schemas are compiled by Ajv with RE2 for their
 * `pattern` keywords, and JSONPath runs without script evaluation.
 */

export type Check = Exclude<GraderConfig, { type: 'model' }>;
export interface CheckResult {
  score: number;
  reason: string;
}

const ajv = new Ajv({
  strict: false,
  validateFormats: false,
  allErrors: false,
  code: { regExp: re2RegExp as never },
});

function re2RegExp(pattern: string, flags: string): { test: (text: string) => boolean } {
  const compiled = RE2JS.compile(pattern, flags.includes('i') ? RE2JS.CASE_INSENSITIVE : 0);
  return { test: (text: string) => compiled.matcher(text).find() };
}

/** Compiled validators and patterns by their source, bounded: a run grades thousands of items with the same few. */
const compiledSchemas = new Map<string, ValidateFunction>();
const compiledPatterns = new Map<string, RE2JS>();

function remember<T>(cache: Map<string, T>, key: string, make: () => T): T {
  let value = cache.get(key);
  if (value === undefined) {
    if (cache.size >= 200) cache.clear();
    value = make();
    cache.set(key, value);
  }
  return value;
}

export function schemaValidator(schema: Record<string, unknown>): ValidateFunction {
  return remember(compiledSchemas, JSON.stringify(schema), () => ajv.compile(schema));
}

function pattern(source: string, ignoreCase: boolean): RE2JS {
  return remember(compiledPatterns, `${ignoreCase ? 'i' : '-'}${source}`, () =>
    RE2JS.compile(source, ignoreCase ? RE2JS.CASE_INSENSITIVE : 0),
  );
}

/** Why a check cannot be used (a pattern RE2 does not accept, a schema Ajv does not compile), or null. */
export function checkProblem(check: Check): string | null {
  try {
    if (check.type === 'regex') pattern(check.pattern, check.ignoreCase);
    if (check.type === 'json_schema') schemaValidator(check.schema);
    if (check.type === 'tool_call' && check.arguments) schemaValidator(check.arguments);
    if (check.type === 'json_path') {
      // Filters and script expressions are code: refused when saved (and never evaluated: eval is off).
      if (JSONPath.toPathArray(check.path).some((segment) => /^\??\(/.test(segment)))
        return 'filter and script expressions are not supported';
      JSONPath({ path: check.path, json: {}, eval: false, wrap: true });
    }
    return null;
  } catch (err) {
    return (err as Error).message.slice(0, 300);
  }
}

const expectedText = (expected: unknown): string | null =>
  expected === undefined || expected === null ? null : typeof expected === 'string' ? expected : JSON.stringify(expected);

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

const pass = (reason: string): CheckResult => ({ score: 1, reason });
const fail = (reason: string): CheckResult => ({ score: 0, reason });
const clip = (text: string, max = 80): string => (text.length > max ? `${text.slice(0, max)}…` : text);

function schemaErrors(validate: ValidateFunction): string {
  const error = validate.errors?.[0];
  return error ? `${error.instancePath || '/'} ${error.message ?? 'is invalid'}` : 'is invalid';
}

export function runCheck(check: Check, output: GradedOutput, expected: unknown): CheckResult {
  switch (check.type) {
    case 'equals': {
      const wanted = check.value ?? expected;
      if (wanted === undefined || wanted === null) return fail('no value to compare with: the item has no expected output');
      if (typeof wanted !== 'string') {
        const parsed = parseJson(output.text);
        if (!parsed.ok) return fail('the output is not JSON; the expected value is');
        return isDeepStrictEqual(parsed.value, wanted)
          ? pass('the output equals the expected JSON')
          : fail('the output differs from the expected JSON');
      }
      const [a, b] = check.ignoreCase
        ? [output.text.trim().toLowerCase(), wanted.trim().toLowerCase()]
        : [output.text.trim(), wanted.trim()];
      return a === b ? pass('the output equals the expected text') : fail(`expected "${clip(wanted)}", got "${clip(output.text)}"`);
    }
    case 'contains': {
      const wanted = check.values ?? (expectedText(expected) === null ? [] : [expectedText(expected)!]);
      if (wanted.length === 0) return fail('no value to look for: the item has no expected output');
      const haystack = check.ignoreCase ? output.text.toLowerCase() : output.text;
      const missing = wanted.filter((value) => !haystack.includes(check.ignoreCase ? value.toLowerCase() : value));
      const score = (wanted.length - missing.length) / wanted.length;
      return { score, reason: missing.length ? `missing: ${missing.map((m) => `"${clip(m, 40)}"`).join(', ')}` : 'contains every value' };
    }
    case 'regex':
      return pattern(check.pattern, check.ignoreCase).matcher(output.text).find()
        ? pass(`matches /${clip(check.pattern, 40)}/`)
        : fail(`does not match /${clip(check.pattern, 40)}/`);
    case 'json_schema': {
      const parsed = parseJson(output.text);
      if (!parsed.ok) return fail('the output is not JSON');
      const validate = schemaValidator(check.schema);
      return validate(parsed.value) ? pass('the output matches the schema') : fail(`the output ${schemaErrors(validate)}`);
    }
    case 'json_path': {
      const parsed = parseJson(output.text);
      if (!parsed.ok) return fail('the output is not JSON');
      let found: unknown[];
      try {
        found = JSONPath({ path: check.path, json: parsed.value as object, eval: false, wrap: true }) as unknown[];
      } catch (err) {
        return fail(`${check.path} cannot be evaluated: ${(err as Error).message.slice(0, 100)}`);
      }
      if (found.length === 0) return fail(`${check.path} selects nothing`);
      const wanted = check.value !== undefined ? check.value : expected;
      if (wanted === undefined || wanted === null) return fail('no value to compare with: the item has no expected output');
      const value = found[0];
      const equal =
        isDeepStrictEqual(value, wanted) || (typeof wanted === 'string' && typeof value !== 'object' && String(value) === wanted);
      return equal
        ? pass(`${check.path} equals the expected value`)
        : fail(`${check.path} is ${clip(JSON.stringify(value) ?? 'undefined')}`);
    }
    case 'tool_call': {
      const calls = output.toolCalls.filter((call) => call.name === check.name);
      if (calls.length === 0)
        return fail(
          `no call of ${check.name}${output.toolCalls.length ? ` (called: ${output.toolCalls.map((c) => c.name).join(', ')})` : ''}`,
        );
      if (!check.arguments) return pass(`called ${check.name}`);
      const validate = schemaValidator(check.arguments);
      for (const call of calls) {
        const parsed = parseJson(call.arguments);
        if (parsed.ok && validate(parsed.value)) return pass(`called ${check.name} with matching arguments`);
      }
      const last = parseJson(calls[calls.length - 1].arguments);
      return fail(last.ok ? `${check.name}'s arguments ${schemaErrors(validate)}` : `${check.name}'s arguments are not JSON`);
    }
    case 'latency':
      return output.latencyMs <= check.maxMs
        ? pass(`${output.latencyMs} ms ≤ ${check.maxMs} ms`)
        : fail(`${output.latencyMs} ms > ${check.maxMs} ms`);
    case 'cost':
      if (output.costUsd === null) return fail('the call has no known price');
      return output.costUsd <= check.maxUsd
        ? pass(`${output.costUsd} USD ≤ ${check.maxUsd} USD`)
        : fail(`${output.costUsd} USD > ${check.maxUsd} USD`);
  }
}
