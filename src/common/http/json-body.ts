import { createHash } from 'node:crypto';

import type { NextFunction, Request, RequestHandler, Response } from 'express';
import * as express from 'express';

import { MALFORMED_JSON_BODY, MAX_BODY_DEPTH, NESTED_TOO_DEEP_BODY } from '../errors/request-body';
import { answerBeforeRouting } from './early-error';

/**
 * Parses every request body as JSON, whatever its Content-Type (the API speaks only JSON, and
 * `curl -d` sends form encoding by default). A body that is not JSON becomes MALFORMED_JSON_BODY,
 * so the endpoint's own validation answers with its documented error; a body over the limit is
 * answered here with 413, before any route runs. A body nested deeper than MAX_BODY_DEPTH becomes
 * NESTED_TOO_DEEP_BODY the same way, before any validator walks it (docs/security.md "Bounded inputs").
 */
export function jsonBody(limit: string): RequestHandler {
  const parse = express.json({ limit, type: () => true, strict: false, verify: noteEscapes });
  return (req: Request, res: Response, next: NextFunction) =>
    parse(req, res, (err?: { type?: string; status?: number }) => {
      if (!err) {
        if (mayNestTooDeep.has(req) && nestsDeeperThan(req.body, MAX_BODY_DEPTH)) req.body = NESTED_TOO_DEEP_BODY;
        else if (mayHoldUnstorableText.has(req) && holdsUnstorableText(req.body)) req.body = MALFORMED_JSON_BODY;
        return next();
      }
      if (err.type === 'entity.parse.failed') {
        req.body = MALFORMED_JSON_BODY;
        return next();
      }
      const status = err.status && err.status >= 400 && err.status < 500 ? err.status : 400;
      const message = err.type === 'entity.too.large' ? `Request body is larger than ${limit}` : 'Request body could not be read';
      answerBeforeRouting(req, res, status, message);
    });
}

/** U+0000, or a UTF-16 surrogate without its pair (JSON escapes can spell both). */
const UNSTORABLE_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Requests whose raw body spells a `\u` escape (or is not UTF-8): only these can hold unstorable text. */
const mayHoldUnstorableText = new WeakSet<object>();

/**
 * Raw UTF-8 JSON cannot carry U+0000 or a lone surrogate unescaped (JSON.parse refuses raw control
 * characters, and UTF-8 decoding turns invalid bytes into U+FFFD), so only a body with a `\u`
 * escape needs the check below. Most bodies have none and are parsed without a reviver, which
 * made JSON.parse about three times slower on every request (docs/performance.md).
 */
function noteEscapes(req: Request, _res: Response, buf: Buffer, encoding: string): void {
  if (encoding !== 'utf-8' || buf.includes(ESCAPE)) mayHoldUnstorableText.add(req);
  if (countsMoreOpeningBrackets(buf, MAX_BODY_DEPTH)) mayNestTooDeep.add(req);
  // An Idempotency-Key compares bodies by their bytes (docs/security.md): no re-serialisation.
  if (req.headers['idempotency-key'] !== undefined) rawBodyDigests.set(req, createHash('sha256').update(buf).digest('hex'));
}

const rawBodyDigests = new WeakMap<object, string>();

/** SHA-256 of the request body as received, for requests with an Idempotency-Key ('' without a body). */
export function rawBodyDigest(req: Request): string {
  return rawBodyDigests.get(req) ?? '';
}
const ESCAPE = Buffer.from('\\u');

/** Requests whose raw body holds more `[` and `{` bytes than the depth bound: only these can nest too deep. */
const mayNestTooDeep = new WeakSet<object>();
const OPENING_BRACKETS = [0x5b, 0x7b];

/**
 * An upper bound on the nesting (the bytes also count brackets inside strings, and in UTF-16 every
 * bracket keeps its byte), found with the native indexOf: most bodies have a few brackets and are
 * never walked.
 */
function countsMoreOpeningBrackets(buf: Buffer, limit: number): boolean {
  let count = 0;
  for (const bracket of OPENING_BRACKETS) {
    for (let at = buf.indexOf(bracket); at !== -1; at = buf.indexOf(bracket, at + 1)) {
      if (++count > limit) return true;
    }
  }
  return false;
}

/** Iterative, like holdsUnstorableText: the parsed value may nest far deeper than the call stack. */
function nestsDeeperThan(body: unknown, limit: number): boolean {
  const pending: Array<[unknown, number]> = [[body, 0]];
  while (pending.length > 0) {
    const [value, depth] = pending.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (depth + 1 > limit) return true;
    for (const item of Array.isArray(value) ? value : Object.values(value)) {
      if (item !== null && typeof item === 'object') pending.push([item, depth + 1]);
    }
  }
  return false;
}

/**
 * PostgreSQL stores neither U+0000 nor an unpaired surrogate in text or jsonb, and any string a
 * client sends may be stored (metadata, messages, logs). A body holding one, as a key or a value, is
 * treated like malformed JSON here (the endpoint answers with its own 400) rather than failing at
 * the INSERT as a 500.
 */
function holdsUnstorableText(body: unknown): boolean {
  // Iterative: JSON.parse accepts nesting far deeper than the call stack would.
  const pending: unknown[] = [body];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === 'string') {
      if (UNSTORABLE_TEXT.test(value)) return true;
    } else if (Array.isArray(value)) {
      for (const item of value) pending.push(item);
    } else if (value !== null && typeof value === 'object') {
      for (const key of Object.keys(value)) {
        if (UNSTORABLE_TEXT.test(key)) return true;
        pending.push((value as Record<string, unknown>)[key]);
      }
    }
  }
  return false;
}
