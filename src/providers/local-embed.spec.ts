import { createHash } from 'node:crypto';

import { LOCAL_EMBEDDING_DEFAULT_DIMENSIONS, localEmbed, localEmbedding } from './local-embed';
import { ProviderError } from './provider.types';

const length = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

describe('local/embed', () => {
  it('is the documented feature hashing: one word is ±1 at the coordinate its SHA-256 picks', () => {
    const hash = createHash('sha256').update('hello', 'utf8').digest();
    const vector = localEmbedding('Hello!', 16);
    const expected = new Array(16).fill(0);
    expected[hash.readUInt32BE(0) % 16] = (hash[4] & 1) === 1 ? -1 : 1;
    expect(vector).toEqual(expected);
  });

  it('gives unit vectors of the asked dimensions, the same for the same text', () => {
    for (const text of ['a b c', '!!!', 'naïve café 42', 'x'.repeat(1000)]) {
      const v = localEmbedding(text);
      expect(v).toHaveLength(LOCAL_EMBEDDING_DEFAULT_DIMENSIONS);
      expect(length(v)).toBeCloseTo(1, 12);
      expect(localEmbedding(text)).toEqual(v);
    }
    expect(localEmbedding('a b', 3)).toHaveLength(3);
  });

  it('refuses token arrays, other models and out-of-range dimensions as bad requests naming the field', () => {
    const param = (fn: () => unknown) => {
      try {
        fn();
      } catch (err) {
        return err instanceof ProviderError ? [err.kind, err.param] : err;
      }
    };
    expect(param(() => localEmbed({ model: 'embed', input: [[1, 2]] }))).toEqual(['bad_request', 'input']);
    expect(param(() => localEmbed({ model: 'echo', input: ['a'] }))).toEqual(['bad_request', 'model']);
    expect(param(() => localEmbed({ model: 'embed', input: ['a'], dimensions: 0 }))).toEqual(['bad_request', 'dimensions']);
    expect(localEmbed({ model: 'embed', input: ['one two', 'three'] })).toMatchObject({ model: 'embed', promptTokens: 3 });
  });
});
