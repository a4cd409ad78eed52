import { timed } from './timed';

/** The timeout test/harness/test-files.ts puts on every test and hook (jest-light-runner has none). */
describe('timed', () => {
  const never = () => new Promise(() => undefined);

  it('answers what the function answers, within its time', async () => {
    await expect(timed(async () => 'done', 1000, 'a test')!()).resolves.toBe('done');
  });

  it('fails a function that runs past its timeout, naming it', async () => {
    await expect(timed(never, 30, 'a beforeAll hook')!()).rejects.toThrow('Exceeded timeout of 30 ms for a beforeAll hook.');
  });

  it('fails what the function throws, at once', async () => {
    const started = Date.now();
    await expect(timed(() => Promise.reject(new Error('boom')), 5000, 'a test')!()).rejects.toThrow('boom');
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('takes a done callback as jest does: done() passes, done(error) fails, never calling it times out', async () => {
    await expect(timed((done) => setTimeout(done as () => void, 5), 1000, 'a test')!()).resolves.toBeUndefined();
    await expect(timed((done) => (done as (err: Error) => void)(new Error('said so')), 1000, 'a test')!()).rejects.toThrow('said so');
    await expect(timed((_done) => undefined, 30, 'a test')!()).rejects.toThrow('Exceeded timeout of 30 ms');
  });

  it('keeps time with the real timers while the test fakes them', async () => {
    jest.useFakeTimers();
    try {
      await expect(timed(never, 30, 'a test')!()).rejects.toThrow('Exceeded timeout of 30 ms');
    } finally {
      jest.useRealTimers();
    }
  });

  it('passes a missing function through for the runner to refuse', () => {
    expect(timed(undefined, 10, 'a test')).toBeUndefined();
  });
});
