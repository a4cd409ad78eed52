import { HISTORY_IDLE_MS, HistoryCache } from './history-cache';

const turn = (seq: number, text: string) => ({ seq, partial: false, content: [{ role: 'user', content: text }] });
const entry = (bytes: number, turns = [turn(1, 'a')]) => ({ lastSeq: turns.length, version: 0, bytes, turns });

describe('HistoryCache', () => {
  it('keeps entries within its budget, the least recently used leaving first', () => {
    const cache = new HistoryCache(3 * (1000 + 256));
    cache.set('p', 'a', entry(1000), []);
    cache.set('p', 'b', entry(1000), []);
    cache.set('p', 'c', entry(1000), []);
    expect(cache.get('p', 'a')).toBeDefined(); // now the most recently used
    cache.set('p', 'd', entry(1000), []);
    expect(cache.get('p', 'b')).toBeUndefined();
    expect(['a', 'c', 'd'].map((id) => cache.get('p', id) !== undefined)).toEqual([true, true, true]);
    expect(cache.size).toBe(3 * (1000 + 256));
  });

  it('does not keep an entry larger than the whole budget, and drops what it held of that thread', () => {
    const cache = new HistoryCache(10_000);
    cache.set('p', 'a', entry(100), []);
    cache.set('p', 'a', entry(20_000), []);
    expect(cache.get('p', 'a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keeps nothing with a budget of 0', () => {
    const cache = new HistoryCache(0);
    cache.set('p', 'a', entry(1), []);
    expect(cache.get('p', 'a')).toBeUndefined();
  });

  it("replaces a thread's entry, counting its bytes once, and keys threads by project", () => {
    const cache = new HistoryCache(1_000_000);
    cache.set('p', 'a', entry(100), []);
    cache.set('p', 'a', entry(300), []);
    cache.set('q', 'a', entry(50), []);
    expect(cache.size).toBe(300 + 50 + 2 * 256);
    cache.delete('p', 'a');
    expect(cache.get('p', 'a')).toBeUndefined();
    expect(cache.get('q', 'a')!.bytes).toBe(50);
    expect(cache.size).toBe(50 + 256);
  });

  it('freezes the turns it is given as new, deep', () => {
    const cache = new HistoryCache(1_000_000);
    const fresh = turn(1, 'a');
    cache.set('p', 'a', entry(10, [fresh]), [fresh]);
    expect(Object.isFrozen(fresh)).toBe(true);
    expect(Object.isFrozen(fresh.content[0])).toBe(true);
  });

  it('drops a history unused for HISTORY_IDLE_MS, and keeps one read since', () => {
    let now = 1_000_000;
    const cache = new HistoryCache(1_000_000, () => now);
    cache.set('p', 'idle', entry(10), []);
    cache.set('p', 'used', entry(10), []);
    now += HISTORY_IDLE_MS - 1;
    expect(cache.get('p', 'used')).toBeDefined();
    now += 2;
    expect(cache.get('p', 'idle')).toBeUndefined();
    expect(cache.get('p', 'used')).toBeDefined();
    expect(cache.size).toBe(10 + 256);
  });
});
