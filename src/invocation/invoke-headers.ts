import type { IncomingHttpHeaders } from 'node:http';

import { metadataProblems } from '../common/validation/metadata';

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
