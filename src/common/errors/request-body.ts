/**
 * Stands in for a body that is not valid JSON. The body parser cannot know which endpoint it
 * serves, so it hands this marker on and each endpoint's own validation rejects it with that
 * endpoint's documented error body.
 */
export const MALFORMED_JSON_BODY: Readonly<Record<string, never>> = Object.freeze({});

export function isMalformedJsonBody(body: unknown): boolean {
  return body === MALFORMED_JSON_BODY;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isMalformedJsonBody(value);
}
