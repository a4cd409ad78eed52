import type { Principal } from '../auth/principal';
import { ApiException, databaseUnavailable, forbidden, isDatabaseUnavailable, serviceError } from '../common/errors';
import { httpStatusFor, ProviderError } from '../providers';
import type { PromptKind } from '../registry/resolved-deployment';

const ERROR_NAMES: Record<number, string> = {
  400: 'Bad Request',
  429: 'Too Many Requests',
  499: 'Client Closed Request',
  502: 'Bad Gateway',
  504: 'Gateway Timeout',
};

/** The invoke endpoints' 404 body for a thread that is unknown, deleted or of another project. */
/** The spec's 404 for a thread to continue that is missing or deleted; other surfaces re-shape it. */
export class ThreadNotFound extends ApiException {
  constructor() {
    super(404, { error: 'Thread not found' });
  }
}

export const threadNotFound = () => new ThreadNotFound();

/**
 * A provider failure as the spec's invoke endpoints answer it, `{error, message}` with the mapped
 * status (and Retry-After); `param` names the request field at fault, which the `/v1` surface
 * reports in OpenAI's error body.
 */
export class ProviderFailure extends ApiException {
  constructor(
    status: number,
    message: string,
    headers: Record<string, string>,
    readonly param?: string,
  ) {
    super(status, serviceError(status, ERROR_NAMES[status] ?? 'Provider Error', message).body, headers);
  }
}

export function providerFailure(err: ProviderError): ProviderFailure {
  const headers: Record<string, string> = err.retryAfterSeconds !== undefined ? { 'Retry-After': String(err.retryAfterSeconds) } : {};
  return new ProviderFailure(httpStatusFor(err), err.message, headers, err.param);
}

/** A field the provider cannot honour, refused before any call (InvocationInput.strictParams). */
export function unsupportedParam(provider: string, param: string): ProviderFailure {
  return new ProviderFailure(400, `Provider "${provider}" does not support "${param}" as given`, {}, param);
}

/**
 * The template would render more than TEMPLATE_MAX_RENDERED_CHARS: the spec's invoke 400 (`issues`
 * at `variables`); `/v1` answers it as a BadRequestError with `param: "variables"` and the issue's
 * message.
 */
export class TemplateTooLarge extends ApiException {
  readonly param = 'variables';

  constructor(readonly detail: string) {
    super(400, { error: 'Invalid request body', issues: [{ code: 'invalid_type', keys: [], path: ['variables'], message: detail }] }, {});
  }
}

export function templateTooLarge(maxChars: number): TemplateTooLarge {
  return new TemplateTooLarge(
    `The template rendered with these variables would exceed ${maxChars} characters (each use of a variable counts its whole value)`,
  );
}

/** Storing a finished reply failed: a database that is down is a 503, as on every other endpoint. */
export function storeFailure(err: unknown): unknown {
  return isDatabaseUnavailable(err) ? databaseUnavailable() : err;
}

/** A key limited to some environments invoked another one, or a provider directly (docs/security.md, "Scopes"). */
export function environmentRefused(caller: Principal): ApiException {
  return forbidden(`This API key may only invoke deployments in: ${(caller.environments ?? []).join(', ')}`);
}

/**
 * A deployment of the wrong kind for the surface: an embedding entry named where a chat answer is
 * asked for, or a prompt or assistant named on `/v1/embeddings` (docs/embeddings.md).
 */
export function wrongKind(slug: string, kind: PromptKind): ApiException {
  return serviceError(
    400,
    'Bad Request',
    kind === 'embedding'
      ? `"${slug}" is an embedding entry: call it through POST /v1/embeddings`
      : `"${slug}" is ${kind === 'assistant' ? 'an assistant' : 'a prompt'}, not an embedding entry: /v1/embeddings takes an embedding entry or '<provider>/<model>'`,
  );
}
