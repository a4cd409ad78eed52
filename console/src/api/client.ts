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

const csrf: Middleware = {
  onRequest({ request }) {
    if (request.method !== 'GET' && request.method !== 'HEAD') request.headers.set(CSRF_HEADER, '1');
    return request;
  },
};

/** Same origin as the console: the session cookie goes along, no key is ever held by the page. */
export const api = createClient<paths>({ baseUrl: window.location.origin, credentials: 'same-origin' });
api.use(csrf);

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
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

/** The data of a typed call, or an ApiError with the server's message. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok || error !== undefined) throw new ApiError(response.status, errorMessageOf(error, response.status));
  return data as T;
}
