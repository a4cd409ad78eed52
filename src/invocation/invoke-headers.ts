import type { IncomingHttpHeaders } from 'node:http';

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
