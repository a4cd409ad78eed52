import { createHash } from 'node:crypto';

import { VersionContent } from './version-content.schema';

/** JSON with object keys sorted at every level and undefined members dropped: one text per value. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * SHA-256 (hex) of a version's canonical content: template, provider, model, parameters, tools and
 * variable defaults. Two versions with the same hash behave the same; request logs carry it as
 * `promptHistoryHash`, and apply uses it to tell whether a prompt changed.
 */
export function contentHash(content: VersionContent): string {
  const { template, provider, model, parameters, tools, variables } = content;
  return createHash('sha256').update(canonicalJson({ template, provider, model, parameters, tools, variables }), 'utf8').digest('hex');
}
