import type { ProviderRequest } from '../providers';
import { responseCacheKey } from './response-cache-key';

const PROJECT = '018f0000-0000-7000-8000-000000000001';
const OTHER = '018f0000-0000-7000-8000-000000000002';
const base: ProviderRequest = {
  model: 'gpt-4o-mini',
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'hi' },
  ],
  temperature: 0.2,
};

describe('responseCacheKey', () => {
  it('is a SHA-256 hex digest, the same for the same project, provider and request', () => {
    const key = responseCacheKey(PROJECT, 'upstream', base);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(responseCacheKey(PROJECT, 'upstream', { ...base, messages: [...base.messages] })).toBe(key);
  });

  it('does not depend on the order of object keys', () => {
    const reordered = { temperature: 0.2, messages: base.messages, model: 'gpt-4o-mini' } as ProviderRequest;
    expect(responseCacheKey(PROJECT, 'upstream', reordered)).toBe(responseCacheKey(PROJECT, 'upstream', base));
  });

  it('differs by project, provider, model, message, parameter, tools and response format', () => {
    const key = responseCacheKey(PROJECT, 'upstream', base);
    const variants = [
      responseCacheKey(OTHER, 'upstream', base),
      responseCacheKey(PROJECT, 'other', base),
      responseCacheKey(PROJECT, 'upstream', { ...base, model: 'gpt-4o' }),
      responseCacheKey(PROJECT, 'upstream', { ...base, messages: [base.messages[0], { role: 'user', content: 'hi!' }] }),
      responseCacheKey(PROJECT, 'upstream', { ...base, temperature: 0.3 }),
      responseCacheKey(PROJECT, 'upstream', { ...base, n: 2 }),
      responseCacheKey(PROJECT, 'upstream', { ...base, seed: 1 }),
      responseCacheKey(PROJECT, 'upstream', { ...base, tools: [{ type: 'function', function: { name: 'f' } }] }),
      responseCacheKey(PROJECT, 'upstream', { ...base, response_format: { type: 'json_object' } }),
    ];
    for (const variant of variants) expect(variant).not.toBe(key);
    expect(new Set(variants).size).toBe(variants.length);
  });

  it('leaves out metadata, the end-user identifiers and the prompt-cache routing hint', () => {
    const key = responseCacheKey(PROJECT, 'upstream', base);
    expect(
      responseCacheKey(PROJECT, 'upstream', {
        ...base,
        metadata: { team: 'a' },
        user: 'u-1',
        safety_identifier: 's-1',
        prompt_cache_key: 'k',
      }),
    ).toBe(key);
  });

  it('treats an undefined field as absent', () => {
    expect(responseCacheKey(PROJECT, 'upstream', { ...base, top_p: undefined })).toBe(responseCacheKey(PROJECT, 'upstream', base));
  });
});
