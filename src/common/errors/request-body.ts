/**
 * Stands in for a body that is not valid JSON. The body parser cannot know which endpoint it
 * serves, so it hands this marker on and each endpoint's own validation rejects it with that
 * endpoint's documented error body.
 */
export const MALFORMED_JSON_BODY: Readonly<Record<string, never>> = Object.freeze({});

/**
 * Stands in for a JSON body nested deeper than MAX_BODY_DEPTH (docs/security.md "Bounded inputs"):
 * validators walk nested values recursively, so such a body is refused before any of them sees it.
 */
export const NESTED_TOO_DEEP_BODY: Readonly<Record<string, never>> = Object.freeze({});

/** Arrays and objects inside one another, at most: far beyond any real body (JSON schemas of tools included). */
export const MAX_BODY_DEPTH = 64;

/** Either marker: the body is refused with the endpoint's documented 400. */
export function isMalformedJsonBody(body: unknown): boolean {
  return body === MALFORMED_JSON_BODY || body === NESTED_TOO_DEEP_BODY;
}

/** Why a marked body was refused, for the endpoint's error message. */
export function malformedBodyReason(body: unknown): string {
  return body === NESTED_TOO_DEEP_BODY
    ? `the body nests arrays and objects more than ${MAX_BODY_DEPTH} levels deep`
    : 'the body is not valid JSON';
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isMalformedJsonBody(value);
}
