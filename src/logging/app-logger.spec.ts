import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';

import pino from 'pino';

import { PinoNestLogger } from './app-logger';
import { requestLogging } from './request-logging';

function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({ write: (chunk, _enc, done) => (lines.push(JSON.parse(String(chunk))), done()) });
  return { lines, logger: pino({ level }, stream) };
}
const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('PinoNestLogger', () => {
  it("writes Nest's (message, context) and error(message, stack, context) as JSON fields", async () => {
    const { lines, logger } = capture('info');
    const nest = new PinoNestLogger(logger);
    nest.log('started', 'Boot');
    nest.error('it broke', 'Error: it broke\n    at x', 'Errors');
    nest.warn({ count: 2 }, 'Limits');
    nest.debug('not at info', 'Boot');
    await flush();
    expect(lines).toEqual([
      expect.objectContaining({ level: 30, context: 'Boot', msg: 'started' }),
      expect.objectContaining({ level: 50, context: 'Errors', msg: 'it broke', stack: 'Error: it broke\n    at x' }),
      expect.objectContaining({ level: 40, context: 'Limits', count: 2 }),
    ]);
  });
});

describe('requestLogging', () => {
  const request = (url: string) =>
    Object.assign(new EventEmitter(), { id: 'req-1', method: 'POST', url, socket: { remoteAddress: '127.0.0.1' } });
  const response = (statusCode: number) => Object.assign(new EventEmitter(), { statusCode, writableFinished: true });

  it('writes one line per request when it ends, with id, method, URL, status and duration, never headers', async () => {
    const { lines, logger } = capture('info');
    const middleware = requestLogging(logger)!;
    const [ok, failed, health] = [response(200), response(502), response(200)];
    let nexts = 0;
    middleware(request('/a/b/c/d') as never, ok as never, () => nexts++);
    middleware(request('/v2/threads') as never, failed as never, () => nexts++);
    middleware(request('/health') as never, health as never, () => nexts++);
    for (const res of [ok, failed, health]) {
      res.emit('finish');
      res.emit('close');
    }
    await flush();
    expect(nexts).toBe(3);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 30,
        msg: 'request completed',
        req: { id: 'req-1', method: 'POST', url: '/a/b/c/d', remoteAddress: '127.0.0.1' },
        res: { statusCode: 200 },
      }),
      expect.objectContaining({ level: 50, msg: 'request errored', res: { statusCode: 502 } }),
    ]);
    expect(typeof lines[0].responseTime).toBe('number');
  });

  it('is no middleware at all above info', () => {
    expect(requestLogging(capture('warn').logger)).toBeUndefined();
  });
});
