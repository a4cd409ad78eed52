import type { Response } from 'supertest';

import { TestApp } from './test-app';

/** Requests as one API key: `X-API-Key` set on every call. */
export function client(t: TestApp, key: string) {
  return {
    get: (path: string) => t.http().get(path).set('X-API-Key', key),
    post: (path: string, body?: unknown) => {
      const req = t.http().post(path).set('X-API-Key', key);
      return body === undefined ? req : req.send(body as object);
    },
    /** A body sent byte for byte (malformed JSON, top-level primitives). */
    postRaw: (path: string, raw: string) => t.http().post(path).set('X-API-Key', key).set('Content-Type', 'application/json').send(raw),
    delete: (path: string) => t.http().delete(path).set('X-API-Key', key),
  };
}
export type Client = ReturnType<typeof client>;

/** The field sets the spec lists per endpoint (DESIGN §3: exactly these, null where absent). */
export const FIELDS = {
  threadCreated: ['createLog', 'createdAt', 'deletedAt', 'id', 'metadata', 'projectId'],
  thread: ['createLog', 'createdAt', 'deletedAt', 'id', 'metadata', 'projectId'],
  threadListItem: ['createLog', 'createdAt', 'id', 'metadata', 'projectId'],
  threadUpdated: ['createLog', 'createdAt', 'id', 'metadata', 'projectId'],
  threadDeleted: ['deleted', 'id', 'object'],
  list: ['data', 'first_id', 'has_more', 'last_id', 'object'],
  /** Create and Get Thread Message for a message not added by an invoke (no requestLog). */
  message: ['content', 'createdAt', 'id', 'metadata', 'requestLogId', 'threadId'],
  messageListItem: ['content', 'createdAt', 'id', 'metadata', 'requestLogId', 'threadId'],
  messageUpdated: ['content', 'createdAt', 'deletedAt', 'id', 'metadata', 'requestLogId', 'threadId'],
  messageDeleted: ['deleted', 'id', 'object'],
} as const;

export const keysOf = (body: object) => Object.keys(body).sort();

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** An ISO 8601 date-time string (UTC, milliseconds) that parses back to itself. */
export function expectIsoDateTime(value: unknown): void {
  expect(typeof value).toBe('string');
  expect(value).toMatch(ISO_DATE_TIME);
  expect(new Date(value as string).toISOString()).toBe(value);
}

/** An integer of Unix seconds, close to now (not milliseconds, not a string). */
export function expectUnixSeconds(value: unknown): void {
  expect(typeof value).toBe('number');
  expect(Number.isInteger(value)).toBe(true);
  const now = Date.now() / 1000;
  expect(value as number).toBeGreaterThan(now - 3600);
  expect(value as number).toBeLessThanOrEqual(now + 1);
}

/** `{error: {message}}` with this status and message (an optional `details` array aside). */
export function expectResourceError(res: Response, status: number, message: string): void {
  expect({ status: res.status, message: res.body?.error?.message }).toEqual({ status, message });
  expect(keysOf(res.body)).toEqual(['error']);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  for (const key of Object.keys(res.body.error)) expect(['details', 'message']).toContain(key);
}

/** The 401 body of every endpoint (spec: List Threads; DESIGN §3: all). */
export function expectUnauthorized(res: Response): void {
  expect(res.status).toBe(401);
  expect(res.body).toEqual({ error: 'Unauthorized', message: 'Invalid API key' });
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
