import createClient, { type Middleware } from 'openapi-fetch';

import type { components, paths } from './schema';

/** The API's own types, generated from Parley's OpenAPI document (docs/console.md, "API types"). */
export type Schemas = components['schemas'];
export type Prompt = Schemas['PromptDto'];
export type Version = Schemas['VersionDto'];
export type RequestLog = Schemas['RequestLogDto'];
export type RequestLogDetail = Schemas['RequestLogDetailDto'];
export type ChatMessage = Version['template'][number];

/** The header the server requires on every state-changing request made with the session cookie. */
export const CSRF_HEADER = 'X-Parley-CSRF';

/**
 * The project an admin session works in (docs/console.md, "The admin key in a project"): sent as
 * `X-Parley-Project` on every request, so the project routes answer for it. Only the project's
 * name is kept (in this tab's sessionStorage, so a reload keeps it); never a key.
 */
export const PROJECT_HEADER = 'X-Parley-Project';
const PROJECT_STORAGE = 'parley.project';
export interface ProjectRef {
  workspace: string;
  project: string;
}
let actingProject: ProjectRef | null = (() => {
  const [workspace, project] = (sessionStorage.getItem(PROJECT_STORAGE) ?? '').split('/');
  return workspace && project ? { workspace, project } : null;
})();
const listeners = new Set<() => void>();

export function setActingProject(next: ProjectRef | null): void {
  actingProject = next;
  if (next) sessionStorage.setItem(PROJECT_STORAGE, `${next.workspace}/${next.project}`);
  else sessionStorage.removeItem(PROJECT_STORAGE);
  listeners.forEach((listener) => listener());
}
export const getActingProject = (): ProjectRef | null => actingProject;
export function subscribeActingProject(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
/** The headers every API request of the page carries beyond the cookie. */
export function consoleHeaders(method: string): Record<string, string> {
  return {
    ...(method !== 'GET' && method !== 'HEAD' ? { [CSRF_HEADER]: '1' } : {}),
    ...(actingProject ? { [PROJECT_HEADER]: `${actingProject.workspace}/${actingProject.project}` } : {}),
  };
}

const consoleRequest: Middleware = {
  onRequest({ request }) {
    for (const [name, value] of Object.entries(consoleHeaders(request.method))) request.headers.set(name, value);
    return request;
  },
};

/** Same origin as the console: the session cookie goes along, no key is ever held by the page. */
export const api = createClient<paths>({ baseUrl: window.location.origin, credentials: 'same-origin' });
api.use(consoleRequest);

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The problems a management error lists under `error.details` (a 400's fields, a refused deploy's gate). */
    readonly details: string[] = [],
  ) {
    super(message);
  }
}

/** The message of any of Parley's error bodies: `{error: {message}}`, `{error, message}`, `{error, issues}`, OpenAI's. */
export function errorMessageOf(body: unknown, status: number): string {
  if (body && typeof body === 'object') {
    const b = body as { error?: unknown; message?: unknown; issues?: { message?: string }[] };
    if (b.error && typeof b.error === 'object' && typeof (b.error as { message?: unknown }).message === 'string') {
      return (b.error as { message: string }).message;
    }
    if (Array.isArray(b.issues) && b.issues.length > 0) return `${String(b.error)}: ${b.issues.map((i) => i.message).join('; ')}`;
    if (typeof b.message === 'string') return b.message;
    if (typeof b.error === 'string') return b.error;
  }
  return `Request failed (${status})`;
}

/** The `details` of a management error (`{error: {message, details: [...]}}`): one line per problem. */
export function errorDetailsOf(body: unknown): string[] {
  const details = (body as { error?: { details?: unknown } } | null)?.error?.details;
  return Array.isArray(details) ? details.filter((d): d is string => typeof d === 'string') : [];
}

/** The data of a typed call, or an ApiError with the server's message and details. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok || error !== undefined)
    throw new ApiError(response.status, errorMessageOf(error, response.status), errorDetailsOf(error));
  return data as T;
}
