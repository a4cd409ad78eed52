import { isMalformedJsonBody, isPlainObject, malformedBodyReason, NESTED_TOO_DEEP_BODY, scimError, ScimException } from '../common/errors';
import { parsePatchPath, PatchPath } from './scim-path';

/**
 * What SCIM bodies have in common (RFC 7643 §2.1, RFC 7644 §3.5.2): attribute names are
 * case-insensitive, and the errors are SCIM's (docs/security.md, "SCIM").
 */

export const invalidValue = (detail: string): ScimException => scimError(400, detail, 'invalidValue');
export const invalidSyntax = (detail: string): ScimException => scimError(400, detail, 'invalidSyntax');

/** The body as an object, its keys lowercased (a later spelling of a key wins); SCIM's 400 for anything else. */
export function resourceBody(body: unknown): Map<string, unknown> {
  if (isMalformedJsonBody(body) || body === NESTED_TOO_DEEP_BODY) throw invalidSyntax(`Invalid body: ${malformedBodyReason(body)}`);
  if (!isPlainObject(body)) throw invalidSyntax('Invalid body: a JSON object is expected');
  return lowerKeys(body);
}

export function lowerKeys(value: Record<string, unknown>): Map<string, unknown> {
  return new Map(Object.entries(value).map(([key, item]) => [key.toLowerCase(), item]));
}

/** A string of at most `max` characters, or null (absent or null); `required` refuses both and the empty string. */
export function text(value: unknown, field: string, max: number, required = false): string | null {
  if (value === undefined || value === null || (value === '' && !required)) {
    if (required) throw invalidValue(`${field} is required`);
    return null;
  }
  if (typeof value !== 'string') throw invalidValue(`${field} must be a string`);
  if (required && value.trim() === '') throw invalidValue(`${field} is required`);
  if (value.length > max) throw invalidValue(`${field} is longer than ${max} characters`);
  return value;
}

/** A boolean, or Entra's "True"/"False" (any case) for one (docs/security.md, "SCIM"). */
export function bool(value: unknown, field: string): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  throw invalidValue(`${field} must be true or false`);
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;
export const MAX_EMAIL = 320;
export const isEmail = (value: string): boolean => value.length <= MAX_EMAIL && EMAIL.test(value);

export type PatchVerb = 'add' | 'replace' | 'remove';

/** One PATCH operation, its `op` and `path` read; `value` as sent. */
export interface PatchOperation {
  op: PatchVerb;
  path: PatchPath | null;
  value: unknown;
}

/** Operations in one PATCH request, at most. */
const MAX_OPERATIONS = 100;

/**
 * A PATCH body (RFC 7644 §3.5.2): `Operations`, each with `op` (any case: Entra sends "Replace"),
 * an optional `path`, and a `value`. A remove without a path is `noTarget`; an add or replace
 * without one takes an object of attributes.
 */
export function patchOperations(body: unknown): PatchOperation[] {
  const fields = resourceBody(body);
  const operations = fields.get('operations');
  if (!Array.isArray(operations) || operations.length === 0) throw invalidValue('Operations must be a non-empty array');
  if (operations.length > MAX_OPERATIONS) throw invalidValue(`Operations holds more than ${MAX_OPERATIONS} operations`);
  return operations.map((item, index) => {
    if (!isPlainObject(item)) throw invalidSyntax(`Operations[${index}] must be an object`);
    const operation = lowerKeys(item);
    const op = operation.get('op');
    const verb = typeof op === 'string' ? op.toLowerCase() : undefined;
    if (verb !== 'add' && verb !== 'replace' && verb !== 'remove') {
      throw invalidSyntax(`Operations[${index}].op must be add, replace or remove`);
    }
    const rawPath = operation.get('path');
    if (rawPath !== undefined && rawPath !== null && typeof rawPath !== 'string') {
      throw scimError(400, `Operations[${index}].path must be a string`, 'invalidPath');
    }
    const path = typeof rawPath === 'string' && rawPath.trim() !== '' ? parsePatchPath(rawPath.trim()) : null;
    const value = operation.get('value');
    if (!path) {
      if (verb === 'remove') throw scimError(400, `Operations[${index}]: a remove needs a path`, 'noTarget');
      if (!isPlainObject(value)) throw invalidValue(`Operations[${index}].value must be an object of attributes when there is no path`);
    } else if (verb !== 'remove' && value === undefined) {
      throw invalidValue(`Operations[${index}].value is required`);
    }
    return { op: verb, path, value };
  });
}

/** One attribute an operation changes. */
export interface PatchTarget {
  op: PatchVerb;
  path: PatchPath;
  value: unknown;
  /** Named by a key of a pathless operation's value: read-only attributes there (`id`, `meta`, `schemas`) are ignored (RFC 7644 §3.5.2). */
  inValue: boolean;
}

/**
 * The operations as (path, value) pairs: an add or replace without a path names its attributes
 * in its value's keys (Entra writes sub-attributes there too: `{"name.givenName": "Ada"}`).
 * Keys that name no attribute at all are `invalidPath`.
 */
export function targetsOf(operations: PatchOperation[]): PatchTarget[] {
  return operations.flatMap(({ op, path, value }): PatchTarget[] =>
    path
      ? [{ op, path, value, inValue: false }]
      : Object.entries(value as Record<string, unknown>).map(([key, item]) => ({
          op,
          path: parsePatchPath(key),
          value: item,
          inValue: true,
        })),
  );
}
