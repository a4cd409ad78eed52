import type { Response } from 'supertest';

/**
 * Assertions on whole error answers: the status, the body exactly (no field more or less), and
 * what every answer of the app carries (JSON, and the X-Request-Id that configureApp's first
 * middleware sets).
 */
export function expectErrorAnswer(res: Response, status: number, body: unknown): void {
  expect({ status: res.status, body: res.body }).toEqual({ status, body });
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(res.headers['x-request-id']).toEqual(expect.any(String));
}

/**
 * `{error: {message}}`, the spec's body of the thread and message endpoints, with the app's
 * optional `details` (one `path: reason` line per problem; docs/decisions.md, "HTTP and errors"):
 * exactly these lines when given, none when `details` is null, and any lines (at least one) when
 * left out.
 */
export function expectResourceError(res: Response, status: number, message: string, details?: string[] | null): void {
  const error = details === null ? { message } : { message, details: details ?? expect.arrayContaining([expect.stringMatching(/\S/)]) };
  expectErrorAnswer(res, status, { error });
}

/** The spec's 401 body (List Threads; the app answers it on every endpoint). */
export function expectInvalidApiKey(res: Response): void {
  expectErrorAnswer(res, 401, { error: 'Unauthorized', message: 'Invalid API key' });
}

export interface SpecIssueShape {
  code: 'unrecognized_keys' | 'invalid_type';
  keys: string[];
  path: string[];
  message: string;
}

/**
 * The spec's invoke 400: `{error: "Invalid request body", issues}`, each issue with exactly its
 * four required fields, `code` one of the two the spec names, `keys` and `path` arrays of strings.
 * With `issues`, the list must equal it (matchers allowed).
 */
export function expectInvokeInvalidBody(res: Response, issues?: unknown[]): void {
  expect(res.status).toBe(400);
  expect(Object.keys(res.body).sort()).toEqual(['error', 'issues']);
  expect(res.body.error).toBe('Invalid request body');
  expect(res.body.issues.length).toBeGreaterThan(0);
  for (const issue of res.body.issues as SpecIssueShape[]) {
    expect(Object.keys(issue).sort()).toEqual(['code', 'keys', 'message', 'path']);
    expect(['unrecognized_keys', 'invalid_type']).toContain(issue.code);
    for (const list of [issue.keys, issue.path]) {
      expect(Array.isArray(list) && list.every((item) => typeof item === 'string')).toBe(true);
    }
    expect(typeof issue.message).toBe('string');
  }
  if (issues) expect(res.body.issues).toEqual(issues);
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
}
