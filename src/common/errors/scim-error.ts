import { ApiException } from './api-exception';
import { errorMessageOf } from './openai-error';

/** RFC 7644 §3.12: the schema of every SCIM error body. */
export const SCIM_ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';
/** RFC 7644 §3.1: SCIM's media type, which every `/scim/v2` answer carries (docs/security.md, "SCIM"). */
export const SCIM_CONTENT_TYPE = 'application/scim+json; charset=utf-8';

/** RFC 7644 §3.12, table 9: the detail error keywords a 400 (or 409) may carry. */
export type ScimType =
  | 'invalidFilter'
  | 'tooMany'
  | 'uniqueness'
  | 'mutability'
  | 'invalidSyntax'
  | 'invalidPath'
  | 'noTarget'
  | 'invalidValue'
  | 'invalidVers'
  | 'sensitive';

/**
 * An error of the SCIM surface, `{schemas, status, scimType?, detail}` with the status as a
 * string (RFC 7644 §3.12). An ApiException, so any filter renders its body as it is.
 */
export class ScimException extends ApiException {}

export function scimError(status: number, detail: string, scimType?: ScimType, headers: Record<string, string> = {}): ScimException {
  const body: Record<string, unknown> = { schemas: [SCIM_ERROR_SCHEMA], status: String(status) };
  if (scimType) body.scimType = scimType;
  body.detail = detail;
  return new ScimException(status, body, headers);
}

/** Any of Parley's other error bodies (a 404 of an unknown route, the body parser's 413, a 503) in SCIM's shape; status and headers kept. */
export function asScimError(err: ApiException): ScimException {
  if (err instanceof ScimException) return err;
  return scimError(err.getStatus(), errorMessageOf(err.body), undefined, err.headers);
}

/** Requests of the SCIM surface (`/scim/v2`), whose errors take SCIM's shape wherever they are raised. */
export function isScimPath(path: string): boolean {
  return path === '/scim' || path.startsWith('/scim/');
}
