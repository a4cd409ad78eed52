import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';

import { auditContext, currentAuditedRequest } from './audit-context';

function fakeResponse(): ServerResponse & EventEmitter {
  const res = new EventEmitter() as ServerResponse & EventEmitter & { writableFinished: boolean };
  res.writableFinished = false;
  return res;
}

/**
 * Serves `req` through the middleware with a task that lives on inside the request's context (as a
 * service awaiting the database does); read() lets it run one more step and says what it saw.
 */
function serve(req: IncomingMessage, res: ServerResponse): { read: () => Promise<unknown> } {
  const asks: ((seen: unknown) => void)[] = [];
  let wake: (() => void) | null = null;
  auditContext(req, res, () => {
    void (async () => {
      for (;;) {
        await new Promise<void>((resolve) => (wake = resolve));
        asks.shift()!(currentAuditedRequest());
      }
    })();
  });
  return {
    read: () =>
      new Promise((resolve) => {
        asks.push(resolve);
        wake!();
      }),
  };
}

describe('auditContext', () => {
  it('makes the request reachable while it is served, and switches the storage off once the last one finished', async () => {
    const first = { id: 'r1' } as unknown as IncomingMessage;
    const second = { id: 'r2' } as unknown as IncomingMessage;
    const res1 = fakeResponse();
    const res2 = fakeResponse();
    const one = serve(first, res1);
    const two = serve(second, res2);
    expect(await one.read()).toBe(first);
    res1.emit('finish');
    // Another request is still served: the storage stays on for it.
    expect(await two.read()).toBe(second);
    res2.emit('finish');
    res2.emit('close');
    expect(await two.read()).toBeUndefined();
    expect(currentAuditedRequest()).toBeUndefined();
    // And on again for the next one.
    const third = { id: 'r3' } as unknown as IncomingMessage;
    const res3 = fakeResponse();
    expect(await serve(third, res3).read()).toBe(third);
    res3.emit('finish');
  });

  it('keeps the storage on for a request whose client left before the answer', async () => {
    jest.useFakeTimers();
    try {
      const req = { id: 'gone' } as unknown as IncomingMessage;
      const res = fakeResponse();
      const served = serve(req, res);
      res.emit('close');
      expect(await served.read()).toBe(req);
      jest.advanceTimersByTime(10 * 60_000);
      expect(await served.read()).toBeUndefined();
    } finally {
      jest.useRealTimers();
    }
  });
});
