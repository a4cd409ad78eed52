/** The exact response cache's HTTP contract, the same on every invoke surface (docs/routing.md, "Response cache"). */

/** The call's switch: a TTL in seconds, `0` for no cache on this call. */
export const CACHE_TTL_HEADER = 'x-parley-cache-ttl';
/** The answer's `hit` or `miss`, when a cache applied to the call. */
export const CACHE_RESULT_HEADER = 'x-parley-cache';
/** The longest TTL, a version's or a call's: 30 days, as the version's `cache.ttlSeconds`. */
export const MAX_TTL_SECONDS = 30 * 24 * 3600;

/** Swagger's `@ApiHeader` of the request header. */
export const CACHE_TTL_API_HEADER = {
  name: CACHE_TTL_HEADER,
  required: false,
  description:
    'seconds: answer from the exact response cache if an identical request was answered at most this long ago, and store this answer for as long; `0`: no cache for this call (docs/routing.md, "Response cache")',
};

/** Swagger's response `headers` entry of the answer header. */
export const CACHE_RESPONSE_HEADERS = {
  [CACHE_RESULT_HEADER]: {
    description: '`hit` (the stored answer, no provider call) or `miss`; only when a response cache applied to the call',
    schema: { type: 'string', enum: ['hit', 'miss'] },
  },
};
