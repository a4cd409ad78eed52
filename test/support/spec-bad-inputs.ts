/**
 * Bad bodies of the spec's update endpoints (Update Thread, Update Thread Message), shared by the
 * controller tier (the pipe's answer, no database) and the e2e tier (the same answer, and nothing
 * stored changed): one table, so the two tiers cannot drift apart.
 */

/** Bodies answered 400 "Metadata is required": `[label, body]` rows for `it.each`. */
export const MISSING_METADATA_BODIES: Array<[string, unknown]> = [
  ['no body', undefined],
  ['an empty object', {}],
  ['metadata null', { metadata: null }],
  ['metadata a string', { metadata: 'x' }],
  ['metadata an array', { metadata: [1] }],
  ['metadata a number', { metadata: 1 }],
];

/** Bodies answered 400 "Invalid request body", with the details the answer names. */
export const INVALID_METADATA_BODIES: Array<{ body: object; details?: string[] }> = [
  { body: { metadata: { a: null } } },
  { body: { metadata: {}, content: 'x' }, details: ['content: unknown field'] },
];
