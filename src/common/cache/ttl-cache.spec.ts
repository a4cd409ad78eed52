import { TtlCache } from './ttl-cache';

/** A load that resolves when told to, counting how often it was started. */
function deferredLoads<V>() {
  const started: Array<(value: V) => void> = [];
  const load = () => new Promise<V>((resolve) => started.push(resolve));
  return { load, started };
}

describe('TtlCache.getOrLoad', () => {
  it('makes one load for concurrent misses of a key, then serves the stored value', async () => {
    const cache = new TtlCache<string, string>(60_000);
    const { load, started } = deferredLoads<string>();
    const calls = Array.from({ length: 64 }, () => cache.getOrLoad('k', load));
    expect(started).toHaveLength(1);
    started[0]('v1');
    expect(await Promise.all(calls)).toEqual(Array(64).fill('v1'));
    expect(await cache.getOrLoad('k', () => Promise.reject(new Error('not called')))).toBe('v1');
    expect(cache.get('k')).toBe('v1');
  });

  it('does not share or store a load that an invalidation overtook', async () => {
    const cache = new TtlCache<string, string>(60_000);
    const { load, started } = deferredLoads<string>();
    const before = cache.getOrLoad('k', load);
    cache.delete('k'); // e.g. a deployment committed meanwhile
    const after = cache.getOrLoad('k', load);
    expect(started).toHaveLength(2);
    started[0]('stale');
    started[1]('fresh');
    expect(await before).toBe('stale');
    expect(await after).toBe('fresh');
    expect(cache.get('k')).toBe('fresh');

    const third = cache.getOrLoad('j', load);
    cache.deleteWhere(() => false);
    started[2]('stale');
    expect(await third).toBe('stale');
    expect(cache.get('j')).toBeUndefined();
  });

  it('does not store a null result, nor a failed load', async () => {
    const cache = new TtlCache<string, string>(60_000);
    expect(await cache.getOrLoad('unknown', async () => null)).toBeNull();
    expect(cache.get('unknown')).toBeUndefined();
    await expect(cache.getOrLoad('broken', () => Promise.reject(new Error('database down')))).rejects.toThrow('database down');
    expect(await cache.getOrLoad('broken', async () => 'recovered')).toBe('recovered');
  });

  it('loads on every call when caching is off (ttl 0)', async () => {
    const cache = new TtlCache<string, number>(0);
    let loads = 0;
    const load = async () => ++loads;
    expect(await Promise.all([cache.getOrLoad('k', load), cache.getOrLoad('k', load)])).toEqual([1, 2]);
  });
});
