import fc from 'fast-check';

import { deref, FuzzRoute, SchemaObject } from './route-table';

/** Real values the fuzzer mixes in, so requests get past lookups and reach deeper code. */
export interface FuzzContext {
  document: SchemaObject;
  /** Values worth trying for a path parameter of this name, the fuzz project's own first (slugs, ids that exist, ids of another project). */
  pathValues: Record<string, string[]>;
  /** Any id worth trying where a parameter has no pool of its own. */
  ids: string[];
  /** Credential headers: the fuzz project's key, the admin key, none, wrong ones. */
  auth: Array<Record<string, string>>;
  /** The credential each kind of route takes, tried most often so that requests get past authentication. */
  projectAuth: Record<string, string>;
  adminAuth: Record<string, string>;
  /**
   * Set for the share of requests built to be valid (no hostile node, no unknown key, the route's
   * credential, JSON): a body has many nodes and one hostile node refuses it all, so without these
   * writes deep in the invocation core (invokes, messages, /v1 calls) would hardly ever run.
   */
  benign?: boolean;
}

export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  route: FuzzRoute;
}

/** Strings that broke parsers, columns and templates elsewhere, plus random text. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '\ud800',
    'null',
    'undefined',
    'true',
    '-1',
    '0',
    '1e400',
    '0x10',
    'NaN',
    '..',
    '../..',
    '%00',
    '%E0%A4%A',
    '__proto__',
    'constructor',
    'toString',
    'hasOwnProperty',
    "' OR 1=1 --",
    '"; DROP TABLE threads; --',
    '{{constructor.constructor "x"}}',
    '{{#each this}}{{/each}}',
    '${process.env}',
    '<script>',
    'é',
    '😀',
    '\u202e',
    'a'.repeat(65),
    'a'.repeat(201),
    'a'.repeat(513),
    'a'.repeat(2001),
    'a'.repeat(5000),
    '00000000-0000-0000-0000-000000000000',
    'ffffffff-ffff-7fff-bfff-ffffffffffff',
    '2147483648',
    '9007199254740993',
    '-0',
    // Control characters other than U+0000: storable, but must not break a parser, a header or a log line.
    '\u0001',
    'a\u0007b',
    '\u001b[31m',
    '\u007f',
    '\u0085',
    '\u2028\u2029',
    '\t\r\n',
    '\r\nX-Injected: 1',
    '\ufeff',
    '\uffff',
  ),
  fc.string({ maxLength: 80 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.uuid(),
);

/** Header values must be visible ASCII, or the client refuses to send them. */
const headerValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('', 'true', 'false', '1', 'yes', 'null', '__proto__', 'a'.repeat(300)),
  fc.stringMatching(/^[\x21-\x7e]{0,60}$/),
);

/**
 * Deep and huge values travel through generation as short placeholder strings, each replaced by
 * its JSON text (serialised once) when the body is written: JSON.stringify of them on every
 * request cost more CPU than the request itself.
 */
const PLACEHOLDERS = new Map<string, string>();
function placeholderFor(value: unknown): string {
  const token = `@@fuzz-value-${PLACEHOLDERS.size}@@`;
  PLACEHOLDERS.set(JSON.stringify(token), JSON.stringify(value));
  return token;
}
const PLACEHOLDER_PATTERN = /"@@fuzz-value-\d+@@"/g;

/** A value as the JSON text of a body, placeholders replaced by what they stand for. */
export function toJsonText(value: unknown): string {
  const text = JSON.stringify(value);
  return text !== undefined && text.includes('@@fuzz-value-')
    ? text.replace(PLACEHOLDER_PATTERN, (token) => PLACEHOLDERS.get(token) ?? token)
    : text;
}

/**
 * Values nested far deeper than any validator's stack: ~1,800 levels of arrays overflowed
 * class-validator inside createLog and the limits bodies (issue 24). Built once; each is the same
 * object in every request that uses it.
 */
const deepValues = fc.constantFrom(
  ...[nest(70, 'array'), nest(1800, 'array'), nest(1800, 'mixed'), nest(2000, 'object')].map(placeholderFor),
);

/** Strings as large as a body may hold, and larger (BODY_LIMIT is 1 MiB): in bodies only, a URL that long is refused by Node itself. */
const hugeString = fc.constantFrom(
  ...['x'.repeat(100_000), '\u0000'.repeat(2_000), 'é'.repeat(400_000), '😀'.repeat(100_000), 'x'.repeat(1_100_000)].map(placeholderFor),
);

/** JSON values that no schema expects: wrong types, prototype-named keys, deep nesting, huge numbers and strings. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.constantFrom<unknown>(null, true, false, 0, -1, 1.5, 1e308, -1e308, 2 ** 53, 2 ** 31, [], {}, [null], ''), weight: 20 },
  { arbitrary: fc.constant(JSON.parse('{"__proto__":{"polluted":1},"constructor":{"prototype":{"x":1}},"toString":"x"}')), weight: 4 },
  { arbitrary: deepValues, weight: 4 },
  { arbitrary: hostileString, weight: 20 },
  // Rare: each costs a megabyte of parsing, and a few hundred per run are plenty.
  { arbitrary: hugeString, weight: 1 },
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 8 },
);

function nest(depth: number, shape: 'array' | 'object' | 'mixed'): unknown {
  let value: unknown = 'deep';
  for (let i = 0; i < depth; i++) value = shape === 'array' || (shape === 'mixed' && i % 2) ? [value] : { a: value };
  return value;
}

/** A value derived from a JSON schema: mostly valid (so the request goes deep), sometimes hostile at any node. */
export function fromSchema(ctx: FuzzContext, schema: SchemaObject | undefined, depth = 0, name?: string): fc.Arbitrary<unknown> {
  if (ctx.benign) return depth > 4 ? fc.constant('x') : validFrom(ctx, deref(ctx.document, schema), depth, name);
  if (depth > 4) return hostileValue;
  // Hostile now and then at every node: a body has many, and one hostile node refuses it all.
  return fc.oneof(
    { arbitrary: validFrom(ctx, deref(ctx.document, schema), depth, name), weight: 12 },
    { arbitrary: hostileValue, weight: 1 },
  );
}

function validFrom(ctx: FuzzContext, s: SchemaObject, depth: number, name?: string): fc.Arbitrary<unknown> {
  const variants: SchemaObject[] | undefined = s.oneOf ?? s.anyOf ?? s.allOf;
  if (variants && variants.length > 0) return fc.oneof(...variants.map((v) => fromSchema(ctx, v, depth + 1, name)));
  if (Array.isArray(s.enum) && s.enum.length > 0) return fc.constantFrom(...s.enum);
  switch (s.type) {
    case 'string': {
      const limit = typeof s.maxLength === 'number' ? s.maxLength : undefined;
      const arbitraries: Array<fc.Arbitrary<unknown>> = [
        fc.string({ minLength: s.minLength ?? 0, maxLength: Math.min(limit ?? 30, 30) }),
        fc.constantFrom(...ctx.ids),
      ];
      // A field named like a pool (`model`, `slug`, `environment`, `threadId`...) gets real values too, so requests get past lookups.
      const pool = name !== undefined && Object.hasOwn(ctx.pathValues, name) ? ctx.pathValues[name] : undefined;
      if (pool) arbitraries.push(fc.constantFrom(...pool), fc.constantFrom(...pool));
      // Either side of the documented bound: the column must hold the one and refuse the other.
      if (limit !== undefined) arbitraries.push(fc.constantFrom('x'.repeat(limit), 'x'.repeat(limit + 1)));
      if (s.format === 'date-time') arbitraries.push(fc.date({ noInvalidDate: true }).map((d) => d.toISOString()));
      return fc.oneof(...arbitraries);
    }
    case 'integer':
      return fc.integer({ min: s.minimum ?? -5, max: Math.min(s.maximum ?? 1000, 2 ** 31) });
    case 'number': {
      // Mostly integers: most numeric fields (limits, versions, tokens) take integers, and a request must get past them to go deeper.
      // Within the documented bounds, as for integers: a score in [0, 1] is otherwise hardly ever valid.
      const min = s.minimum ?? -5;
      const max = Math.max(Math.min(s.maximum ?? 1000, 2 ** 31), min);
      return fc.oneof(
        { arbitrary: fc.integer({ min: Math.ceil(min), max: Math.max(Math.floor(max), Math.ceil(min)) }), weight: 4 },
        {
          arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true, min: Math.max(min, -10), max: Math.max(Math.min(max, 10), min) }),
          weight: 1,
        },
      );
    }
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(fromSchema(ctx, s.items, depth + 1), { maxLength: 3 });
    case 'object':
    case undefined: {
      if (!s.properties && s.type === undefined) return fc.jsonValue({ maxDepth: 2 });
      const properties: Record<string, SchemaObject> = s.properties ?? {};
      const model = Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, fromSchema(ctx, value, depth + 1, key)]));
      const required: string[] = (Array.isArray(s.required) ? s.required : []).filter((key: string) => key in model);
      // A map named like a pool (`minScores`: grader names) gets its keys from it, so requests get past them.
      const keyPool =
        name !== undefined && !s.properties && typeof s.additionalProperties === 'object' && Object.hasOwn(ctx.pathValues, name)
          ? ctx.pathValues[name]
          : undefined;
      const known = keyPool
        ? fc.dictionary(fc.constantFrom(...keyPool), fromSchema(ctx, s.additionalProperties, depth + 1), { minKeys: 1 })
        : fc.record(model, { requiredKeys: required });
      const extraValue =
        s.additionalProperties && typeof s.additionalProperties === 'object'
          ? fromSchema(ctx, s.additionalProperties, depth + 1)
          : hostileValue;
      const extra = fc.dictionary(
        fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('__proto__', 'constructor', 'toString', 'a'.repeat(65))),
        extraValue,
        {
          maxKeys: s.additionalProperties ? 3 : 1,
        },
      );
      if (ctx.benign) return known;
      // Unknown keys only now and then: they are refused at once and would hide everything else.
      return fc.tuple(known, fc.option(extra, { freq: 8 })).map(([values, more]) => merge(more ?? {}, values));
    }
    default:
      return hostileValue;
  }
}

/** Own properties, `__proto__` included, as JSON.parse would create them. */
function merge(...parts: object[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const part of parts) {
    for (const key of Object.keys(part))
      Object.defineProperty(out, key, {
        value: (part as Record<string, unknown>)[key],
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return out;
}

/** Path segments: real values mostly, hostile ones percent-encoded (dots too, so no URL normalisation changes the route). */
function pathValue(ctx: FuzzContext, name: string): fc.Arbitrary<string> {
  const pool = ctx.pathValues[name] ?? ctx.ids;
  if (ctx.benign) return fc.constant(pool[0]);
  return fc.oneof(
    // The pool's first value (the fuzz project's own) most: workspace and project are drawn apart and must agree.
    { arbitrary: fc.constant(pool[0]), weight: 4 },
    { arbitrary: fc.constantFrom(...pool), weight: 2 },
    { arbitrary: fc.constantFrom(...ctx.ids), weight: 1 },
    // Not a dot segment ('.', '..', '%2e%2e'): the client's URL parser resolves those away before sending.
    { arbitrary: hostileString.map(encodeSegment).filter((s) => s.length > 0 && !/^(\.|%2e){1,2}$/i.test(s)), weight: 2 },
    { arbitrary: fc.constantFrom('%E0%A4%A', '%zz', '%2e%2ex', '%00'), weight: 1 },
  );
}

/**
 * Percent-encodes the UTF-8 bytes (a lone surrogate becomes U+FFFD, as on the wire), dots too:
 * every byte but [A-Za-z0-9_~-]. encodeURIComponent leaves `.!*'()` as they are, so those follow.
 * (The same text as encoding byte by byte, checked on 200,000 samples; a fifth of its CPU.
 * `toWellFormed` is Node 20's, newer than the ES2023 library the project compiles against.)
 */
const encodeSegment = (value: string) =>
  encodeURIComponent((value as string & { toWellFormed(): string }).toWellFormed()).replace(
    /[.!*'()]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );

function queryString(ctx: FuzzContext, route: FuzzRoute): fc.Arbitrary<string> {
  const declared = route.queryParams.map((param) =>
    fc.option(
      fc.oneof(
        fromSchema(ctx, param.schema)
          .map((value) => (typeof value === 'string' ? value : JSON.stringify(value)))
          // Deep and huge values belong in bodies: Node refuses a URL past 16 KB before Parley sees it (431, no body).
          .filter((value) => value.length <= 2000)
          .map((value) => [[param.name, value]]),
        fc.array(hostileString, { minLength: 2, maxLength: 2 }).map((values) => values.map((value) => [param.name, value])),
      ),
      { freq: 2 },
    ),
  );
  const unknown = ctx.benign
    ? fc.constant(null)
    : fc.option(
        fc.tuple(hostileString, hostileString).map((pair) => [pair]),
        { freq: 5 },
      );
  return fc.tuple(fc.tuple(...declared), unknown).map(([params, extra]) => {
    const pairs = [...params.flatMap((p) => p ?? []), ...(extra ?? [])] as string[][];
    return pairs.length === 0 ? '' : '?' + pairs.map(([k, v]) => `${encodeSegment(k)}=${encodeSegment(v)}`).join('&');
  });
}

const rawBodies = fc.constantFrom(
  '',
  '{',
  '{"a":',
  'null',
  '[]',
  '"text"',
  '42',
  'metadata=1',
  '\u0000',
  '['.repeat(5000) + ']'.repeat(5000),
  '{"a":1}{"b":2}',
);

function bodyOf(ctx: FuzzContext, route: FuzzRoute): fc.Arbitrary<string | undefined> {
  const json = route.body ? fromSchema(ctx, route.body) : hostileValue;
  const sendsBody = route.method === 'POST' || route.method === 'PUT' || route.method === 'PATCH';
  if (ctx.benign) return sendsBody ? json.map(toJsonText) : fc.constant(undefined);
  return fc.oneof(
    { arbitrary: json.map(toJsonText), weight: sendsBody ? 8 : 1 },
    { arbitrary: rawBodies, weight: 1 },
    { arbitrary: fc.constant(undefined), weight: sendsBody ? 1 : 6 },
  );
}

function headersOf(ctx: FuzzContext, route: FuzzRoute): fc.Arbitrary<Record<string, string>> {
  if (ctx.benign) return fc.constant({ ...(route.admin ? ctx.adminAuth : ctx.projectAuth), 'content-type': 'application/json' });
  const contentType = fc.oneof(
    { arbitrary: fc.constant('application/json'), weight: 10 },
    {
      arbitrary: fc.constantFrom(
        'text/plain',
        'application/x-www-form-urlencoded',
        'application/json; charset=latin1',
        'application/json; charset=utf-16',
        'multipart/form-data; boundary=x',
        '',
      ),
      weight: 3,
    },
  );
  const extra = fc.dictionary(
    fc.constantFrom(
      'x-parley-do-not-record',
      'idempotency-key',
      'x-request-id',
      'x-parley-thread-id',
      'accept',
      'x-forwarded-for',
      'content-encoding',
      'x-parley-metadata-a',
      'x-langtail-metadata-b',
      `x-parley-metadata-${'k'.repeat(65)}`,
    ),
    headerValue,
    { maxKeys: 2 },
  );
  // Now and then more metadata headers than invoke metadata may hold (64 keys).
  const manyMetadata = fc.option(
    fc.constant(Object.fromEntries(Array.from({ length: 70 }, (_, i) => [`x-parley-metadata-m${i}`, `v${i}`]))),
    { freq: 40 },
  );
  return fc
    .tuple(
      fc.oneof(
        { arbitrary: fc.constant(route.admin ? ctx.adminAuth : ctx.projectAuth), weight: 3 },
        { arbitrary: fc.constantFrom(...ctx.auth), weight: 2 },
      ),
      contentType,
      extra,
      manyMetadata,
    )
    .map(([auth, type, more, metadata]) => ({ ...(metadata ?? {}), ...more, ...auth, ...(type ? { 'content-type': type } : {}) }));
}

/** One request to one route of the table, every part derived from its documented shape. */
export function requestFor(ctx: FuzzContext, routes: FuzzRoute[]): fc.Arbitrary<FuzzRequest> {
  // One arbitrary per route, built once: building them per request costs more than the request.
  // A GET without parameters (/health, /metrics, /v1/models) has little to vary: drawn a quarter as often.
  // One request in five per route is built to be valid (FuzzContext.benign).
  const benign = { ...ctx, benign: true };
  return fc.oneof(
    ...routes.flatMap((route) => [
      { arbitrary: requestForRoute(ctx, route), weight: hasInputs(route) ? 4 : 1 },
      { arbitrary: requestForRoute(benign, route), weight: hasInputs(route) ? 1 : 0 },
    ]),
  );
}

function hasInputs(route: FuzzRoute): boolean {
  return route.method !== 'GET' || route.pathParams.length > 0 || route.queryParams.length > 0;
}

export function requestForRoute(ctx: FuzzContext, route: FuzzRoute): fc.Arbitrary<FuzzRequest> {
  return fc
    .tuple(
      fc.tuple(...route.pathParams.map((name) => pathValue(ctx, name))),
      queryString(ctx, route),
      bodyOf(ctx, route),
      headersOf(ctx, route),
    )
    .map(([values, query, body, headers]) => {
      let i = 0;
      const path = route.path.replace(/\{[^}]+\}/g, () => values[i++]);
      const request = { method: route.method, url: path + query, headers, body };
      // fast-check prints a failing request with this: the request as sent, without the route's schema.
      return { ...request, route, [fc.toStringMethod]: () => JSON.stringify(request) };
    });
}
