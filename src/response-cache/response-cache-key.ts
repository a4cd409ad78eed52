import { createHash } from 'node:crypto';

import type { ProviderRequest } from '../providers';
import { canonicalJson } from '../registry/content/content-hash';

/**
 * Request fields that never reach the model's input, left out of the key (docs/routing.md,
 * "Response cache"): Parley's own `metadata`, the end-user identifiers (`user`,
 * `safety_identifier`: abuse detection upstream, not a word of the answer) and OpenAI's
 * prompt-cache routing hint. Two end users who send the same rendered request share an answer;
 * a caller that must keep them apart does not enable the cache (or names the user in a variable).
 */
export const KEY_EXCLUDED_FIELDS = ['metadata', 'user', 'safety_identifier', 'prompt_cache_key'] as const;

/**
 * The exact cache's key: SHA-256 (hex) of the project, the provider it names and the canonical
 * rendered request (messages after template and history, every parameter, tools, response format).
 * The project is in the key and in the table's primary key: an entry never crosses projects.
 */
export function responseCacheKey(projectId: string, providerName: string, request: ProviderRequest): string {
  const keyed: Record<string, unknown> = { ...request };
  for (const field of KEY_EXCLUDED_FIELDS) delete keyed[field];
  const text = canonicalJson({ project: projectId, provider: providerName, model: request.model, request: keyed });
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
