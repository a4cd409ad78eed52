import type { FuzzRequest } from './arbitraries';

export interface FuzzResponse {
  status: number;
  contentType: string;
  text: string;
  /** How long it took, for FUZZ_VERBOSE's per-route report. */
  ms?: number;
}

/** The documented 400 messages of the spec's thread and message endpoints (spec "Endpoints"). */
const DOCUMENTED_400: Record<string, string[]> = {
  'POST /v2/threads': ['Invalid request body'],
  'GET /v2/threads': ['Invalid request parameters'],
  'POST /v2/threads/{threadId}': ['Metadata is required', 'Invalid request body'],
  'POST /v2/threads/{threadId}/messages': ['Invalid request parameters'],
  'GET /v2/threads/{threadId}/messages': ['Invalid request parameters'],
  'POST /v2/threads/{threadId}/messages/{messageId}': ['Metadata is required', 'Invalid request body'],
};

/**
 * Answered before any endpoint runs (docs/decisions.md "HTTP and errors", "Hostile input"): the body
 * could not be read, no route matched, or a path segment's percent-encoding is broken.
 */
const PRE_ROUTING = /^(Request body is larger than |Request body could not be read|Cannot [A-Z]+ |Failed to decode param )/;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const keysAre = (value: Record<string, unknown>, ...keys: string[]) => Object.keys(value).sort().join() === [...keys].sort().join();

/** What the fuzzer knows of a key it sends: its scopes (null: all), and the project it belongs to. */
export interface KeyReach {
  label: string;
  scopes: string[] | null;
  /** `<workspace>/<project>` of a project key; a workspace admin key's workspace as `<workspace>/`. */
  home: string;
}

/** The key a request carried, when the fuzzer knows it. */
function keyOf(req: FuzzRequest, keys: Map<string, KeyReach>): KeyReach | undefined {
  const header = req.headers['x-api-key'] ?? req.headers.authorization?.replace(/^Bearer /, '');
  return header === undefined ? undefined : keys.get(header);
}

/**
 * A success the key should have been refused (docs/security.md, "Scopes"): a route needing a scope
 * the key lacks, or a path naming a workspace or project the key does not belong to.
 */
function reachProblems(req: FuzzRequest, key: KeyReach): string[] {
  const needed = req.route.scopes ?? [];
  if (key.scopes !== null && needed.length > 0 && !needed.includes('any') && !needed.some((scope) => key.scopes!.includes(scope))) {
    return [`${key.label} key got a success on a route needing ${needed.join(' or ')}`];
  }
  const [workspace, project] = key.home.split('/');
  const params = Object.fromEntries(req.route.pathParams.map((name, i) => [name, pathSegments(req)[i]]));
  if (params.workspace !== undefined && params.workspace !== workspace)
    return [`${key.label} key got a success in workspace ${params.workspace}`];
  if (project && params.project !== undefined && params.project !== project)
    return [`${key.label} key got a success in project ${params.project}`];
  return [];
}

/** The values the request put in the route's path parameters, in order (each parameter is a whole segment). */
function pathSegments(req: FuzzRequest): string[] {
  const sent = req.url.split('?')[0].split('/');
  return req.route.path.split('/').flatMap((part, i) => {
    if (!/^\{[^}]+\}$/.test(part)) return [];
    try {
      return [decodeURIComponent(sent[i] ?? '')];
    } catch {
      return [sent[i] ?? ''];
    }
  });
}

/**
 * What is wrong with a response, by the documented error body of the endpoint's group; empty when
 * nothing is. `keys`: the keys whose reach is checked on every success.
 */
export function problemsWith(req: FuzzRequest, res: FuzzResponse, keys = new Map<string, KeyReach>()): string[] {
  if (res.status >= 500) return [`status ${res.status}`];
  if (res.status < 400) {
    const key = keyOf(req, keys);
    return key ? reachProblems(req, key) : [];
  }
  // SCIM answers every error in RFC 7644's shape and media type (docs/security.md, "SCIM").
  if (req.route.group === 'scim') return scimProblems(res);
  if (!res.contentType.startsWith('application/json')) return [`error with content-type "${res.contentType}"`];
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    return ['error body is not JSON'];
  }
  if (!isObject(body)) return ['error body is not an object'];
  const group = req.route.group;
  if (group === 'openai') return openAIProblems(body);
  if (group === 'anthropic') return anthropicProblems(body);
  if (res.status === 401) {
    return body.error === 'Unauthorized' && body.message === 'Invalid API key' && keysAre(body, 'error', 'message')
      ? []
      : ['401 body is not {error: "Unauthorized", message: "Invalid API key"}'];
  }
  const resource = resourceProblems(body);
  if (resource.length === 0 && PRE_ROUTING.test((body.error as { message: string }).message)) return [];
  if (group === 'invoke') return invokeProblems(res.status, body);
  if (group === 'v2') {
    if (res.status === 403)
      return typeof body.error === 'string' && typeof body.message === 'string' ? [] : ['403 body is not {error, message}'];
    if (resource.length > 0) return resource;
    const documented = DOCUMENTED_400[`${req.method} ${req.route.path}`];
    const message = (body.error as { message: string }).message;
    if (res.status === 400 && documented && !documented.includes(message))
      return [`400 message "${message}" is not one of ${JSON.stringify(documented)}`];
  }
  return [];
}

/** `{schemas: [the Error URN], status: "<the status>", scimType?, detail?}` as application/scim+json. */
function scimProblems(res: FuzzResponse): string[] {
  if (!res.contentType.startsWith('application/scim+json')) return [`SCIM error with content-type "${res.contentType}"`];
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    return ['SCIM error body is not JSON'];
  }
  if (!isObject(body)) return ['SCIM error body is not an object'];
  const schemas = body.schemas;
  if (!Array.isArray(schemas) || schemas[0] !== 'urn:ietf:params:scim:api:messages:2.0:Error')
    return ['SCIM error without the Error schema'];
  if (body.status !== String(res.status)) return [`SCIM error status "${String(body.status)}" is not "${res.status}"`];
  if (!Object.keys(body).every((key) => ['schemas', 'status', 'scimType', 'detail'].includes(key))) return ['SCIM error has other keys'];
  return [];
}

/** `{error: {message, details?}}` (thread, message and management endpoints). */
function resourceProblems(body: Record<string, unknown>): string[] {
  const error = body.error;
  if (!keysAre(body, 'error') || !isObject(error) || typeof error.message !== 'string') return ['body is not {error: {message}}'];
  if (!Object.keys(error).every((key) => key === 'message' || key === 'details')) return ['error has keys other than message and details'];
  if (error.details !== undefined && !(Array.isArray(error.details) && error.details.every((d) => typeof d === 'string')))
    return ['details is not an array of strings'];
  return [];
}

/** 400 `{error: "Invalid request body", issues}` with the spec's four issue fields; other failures `{error, message?}`. */
function invokeProblems(status: number, body: Record<string, unknown>): string[] {
  if (status === 400 && body.error === 'Invalid request body') {
    if (!keysAre(body, 'error', 'issues') || !Array.isArray(body.issues) || body.issues.length === 0)
      return ['invoke 400 is not {error, issues}'];
    for (const issue of body.issues as unknown[]) {
      const ok =
        isObject(issue) &&
        keysAre(issue, 'code', 'keys', 'path', 'message') &&
        (issue.code === 'unrecognized_keys' || issue.code === 'invalid_type') &&
        Array.isArray(issue.keys) &&
        issue.keys.every((k) => typeof k === 'string') &&
        Array.isArray(issue.path) &&
        issue.path.every((p) => typeof p === 'string') &&
        typeof issue.message === 'string';
      if (!ok) return [`invoke issue ${JSON.stringify(issue)} lacks the spec's fields`];
    }
    return [];
  }
  const named =
    typeof body.error === 'string' &&
    Object.keys(body).every((key) => key === 'error' || key === 'message') &&
    (body.message === undefined || typeof body.message === 'string');
  return named ? [] : [`invoke ${status} body is not {error, message?}`];
}

/** OpenAI's `{error: {message, type, param, code}}` for everything under /v1. */
function openAIProblems(body: Record<string, unknown>): string[] {
  const error = body.error;
  const ok = isObject(error) && typeof error.message === 'string' && typeof error.type === 'string' && 'param' in error && 'code' in error;
  return ok ? [] : ["body is not OpenAI's {error: {message, type, param, code}}"];
}

/**
 * Anthropic's `{type: "error", error: {type, message}, request_id}` for /v1/messages; what is
 * refused before routing (a body over the limit) is answered in OpenAI's shape, as for all of /v1.
 */
function anthropicProblems(body: Record<string, unknown>): string[] {
  const error = body.error;
  if (isObject(error) && PRE_ROUTING.test(String(error.message)) && openAIProblems(body).length === 0) return [];
  const ok =
    body.type === 'error' &&
    keysAre(body, 'type', 'error', 'request_id') &&
    (body.request_id === null || typeof body.request_id === 'string') &&
    isObject(error) &&
    keysAre(error, 'type', 'message') &&
    typeof error.type === 'string' &&
    typeof error.message === 'string';
  return ok ? [] : ["body is not Anthropic's {type: 'error', error: {type, message}, request_id}"];
}
