import type { IncomingHttpHeaders } from 'node:http';

import type { ApiException } from '../common/errors';
import { metadataProblems } from '../common/validation/metadata';
import { CACHE_TTL_HEADER, MAX_TTL_SECONDS } from '../response-cache/response-cache-headers';

const DO_NOT_RECORD_HEADERS = ['x-parley-do-not-record', 'x-langtail-do-not-record'];
const METADATA_PREFIXES = ['x-parley-metadata-', 'x-langtail-metadata-'];

export interface HeaderOptions {
  doNotRecord: boolean;
  metadata: Record<string, string>;
}

/**
 * `doNotRecord` and `metadata` sent as headers (DESIGN.md §4.8): Parley's own `x-parley-*` and the
 * `x-langtail-*` headers the langtail SDK sends. Header names arrive lower-cased, so metadata keys
 * from headers are lower-case.
 */
export function optionsFromHeaders(headers: IncomingHttpHeaders): HeaderOptions {
  const doNotRecord = DO_NOT_RECORD_HEADERS.some((name) => /^(true|1|yes)$/i.test(String(headers[name] ?? '').trim()));
  const metadata: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const prefix = METADATA_PREFIXES.find((p) => name.startsWith(p));
    if (prefix && name.length > prefix.length && value !== undefined) {
      metadata[name.slice(prefix.length)] = Array.isArray(value) ? value.join(', ') : value;
    }
  }
  return { doNotRecord, metadata };
}

/**
 * An invoke's metadata: its `x-parley-metadata-*` headers overlaid by the body's `metadata`, held to
 * the bounds of thread metadata together (64 keys of 1 to 64 characters, string values of at most
 * 512 characters or finite numbers; docs/security.md "Bounded inputs"). `problems` lists what
 * exceeds them, one line each; every transport refuses those with its own 400.
 */
export function invokeMetadataOf(fromHeaders: Record<string, string>, fromBody: Record<string, string | number> | null | undefined) {
  const metadata: Record<string, string | number> = { ...fromHeaders, ...(fromBody ?? {}) };
  const problems = metadataProblems(metadata, 'metadata');
  const keys = Object.keys(fromHeaders).length;
  // Header names are counted too: say so when they are what pushed the count over.
  if (keys > 0 && problems.length > 0)
    problems.push(`metadata includes ${keys} value(s) from x-parley-metadata-* / x-langtail-metadata-* headers`);
  return { metadata, problems };
}

/**
 * `x-parley-cache-ttl: <seconds>` (docs/routing.md, "Response cache"): this call uses the exact
 * response cache with that TTL, whether or not its version has a cache; `0` bypasses the version's
 * cache for this call. undefined when the header is absent; `invalid` makes the surface's own 400.
 */
export function cacheTtlOf(headers: IncomingHttpHeaders, invalid: (message: string) => ApiException): number | undefined {
  const value = headers[CACHE_TTL_HEADER];
  if (value === undefined) return undefined;
  const text = typeof value === 'string' ? value.trim() : '';
  if (!/^[0-9]{1,8}$/.test(text) || Number(text) > MAX_TTL_SECONDS)
    throw invalid(`${CACHE_TTL_HEADER} must be a whole number of seconds from 0 to ${MAX_TTL_SECONDS}`);
  return Number(text);
}
