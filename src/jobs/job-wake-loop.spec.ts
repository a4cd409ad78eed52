import { holdLease, JobWakeLoop } from './job-wake-loop';

/** A pass that waits until released, counting how many ran and how many overlapped. */
function gatedPass(more = true) {
  let running = 0;
  const state = { passes: 0, overlap: 0, release: () => {} };
  const pass = async () => {
    running++;
    state.passes++;
    if (running > 1) state.overlap++;
    await new Promise<void>((resolve) => (state.release = resolve));
    running--;
    return more;
  };
  return { pass, state };
}

describe('JobWakeLoop', () => {
  it('runs one pass at a time, and one more pass for any number of wakes during a pass', async () => {
    const { pass, state } = gatedPass();
    const loop = new JobWakeLoop(pass, () => {});
    const first = loop.wake();
    void loop.wake();
    void loop.wake();
    state.release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(state.passes).toBe(2);
    state.release();
    await first;
    expect(state.passes).toBe(2);
    expect(state.overlap).toBe(0);
  });

  it('runs no further pass when a pass found no room, nor any after stop()', async () => {
    const { pass, state } = gatedPass(false);
    const loop = new JobWakeLoop(pass, () => {});
    const first = loop.wake();
    void loop.wake();
    state.release();
    await first;
    expect(state.passes).toBe(1);
    loop.stop();
    await loop.wake();
    expect(state.passes).toBe(1);
    expect(loop.isStopped).toBe(true);
  });

  it('reports a failed pass and wakes again afterwards', async () => {
    const errors: string[] = [];
    let calls = 0;
    const loop = new JobWakeLoop(
      async () => {
        calls++;
        if (calls === 1) throw new Error('database down');
        return true;
      },
      (err) => errors.push(err.message),
    );
    await loop.wake();
    await loop.wake();
    expect(errors).toEqual(['database down']);
    expect(calls).toBe(2);
  });
});

describe('holdLease', () => {
  it('renews every quarter lease until stopped, and survives a failed renewal', () => {
    jest.useFakeTimers();
    try {
      let renewals = 0;
      const stop = holdLease(() => {
        renewals++;
        return renewals === 1 ? Promise.reject(new Error('lost connection')) : Promise.resolve();
      }, 1000);
      jest.advanceTimersByTime(1000);
      expect(renewals).toBe(4);
      stop();
      jest.advanceTimersByTime(1000);
      expect(renewals).toBe(4);
    } finally {
      jest.useRealTimers();
    }
  });
});
