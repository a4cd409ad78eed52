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
 * SHA-256 (hex) of a version's canonical content: template, provider, model, parameters, tools,
 * variable defaults, and the routing block and response cache when set. Two versions with the same hash behave the same; request logs carry it as
 * `promptHistoryHash`, and apply uses it to tell whether a prompt changed.
 */
export function contentHash(content: VersionContent): string {
  // routing and cache only when set: versions stored before they existed keep their hashes.
  const { template, provider, model, parameters, tools, variables, routing, cache } = content;
  const hashed = { template, provider, model, parameters, tools, variables, routing, cache };
  return createHash('sha256').update(canonicalJson(hashed), 'utf8').digest('hex');
}
