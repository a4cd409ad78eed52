import { DataSource } from 'typeorm';

import { STICKY_TTL_MS, StickyThreads } from './sticky-threads';

const THREAD = '0190d6a0-0000-7000-8000-000000000001';

describe('StickyThreads (a fake clock and database)', () => {
  let now: number;
  let logged: { provider_name: string; model: string }[];
  let query: jest.Mock;
  let sticky: StickyThreads;
  beforeEach(() => {
    now = 0;
    logged = [{ provider_name: 'primary', model: 'gpt-4o' }];
    query = jest.fn(async () => logged);
    sticky = new StickyThreads({ query } as unknown as DataSource, () => now);
  });

  it('reads a thread it never served once, shared by concurrent calls, and keeps what it read', async () => {
    const reads = await Promise.all([sticky.get('p', THREAD), sticky.get('p', THREAD)]);
    expect(reads).toEqual([
      { provider: 'primary', model: 'gpt-4o' },
      { provider: 'primary', model: 'gpt-4o' },
    ]);
    expect(await sticky.get('p', THREAD)).toEqual({ provider: 'primary', model: 'gpt-4o' });
    expect(query).toHaveBeenCalledTimes(1);
    expect(query.mock.calls[0][1]).toEqual(['p', THREAD]);
  });

  it('keeps a miss too, and what it served itself without asking', async () => {
    logged = [];
    expect(await sticky.get('p', THREAD)).toBeUndefined();
    expect(await sticky.get('p', THREAD)).toBeUndefined();
    sticky.served('p', THREAD, { provider: 'backup', model: 'gpt-4o' });
    expect(await sticky.get('p', THREAD)).toEqual({ provider: 'backup', model: 'gpt-4o' });
    expect(query).toHaveBeenCalledTimes(1);
  });

  it('reads again after STICKY_TTL_MS (another instance may have moved the thread on)', async () => {
    sticky.served('p', THREAD, { provider: 'backup', model: 'gpt-4o' });
    now += STICKY_TTL_MS;
    expect(await sticky.get('p', THREAD)).toEqual({ provider: 'primary', model: 'gpt-4o' });
    expect(query).toHaveBeenCalledTimes(1);
  });

  it('a failed read routes as if the thread were new, and is tried again next time', async () => {
    query.mockRejectedValueOnce(new Error('database away'));
    expect(await sticky.get('p', THREAD)).toBeUndefined();
    expect(await sticky.get('p', THREAD)).toEqual({ provider: 'primary', model: 'gpt-4o' });
  });

  it('never queries for an id that is no UUID', async () => {
    expect(await sticky.get('p', 'conv_123')).toBeUndefined();
    expect(query).not.toHaveBeenCalled();
  });
});
