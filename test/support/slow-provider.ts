import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

import { sleep } from './invoke-factories';

/**
 * A slow provider for the kill -9 tests: each call goes to the fake upstream at once (it records it
 * and answers), and its answer is passed on `delayMs` later, or, while `hold()` is on, once
 * `release()` is called. `open` counts the calls in flight; `cut` those whose caller went away
 * before their answer (the calls a kill cut mid-call).
 */
export async function slowProvider(target: string, delayMs: number) {
  let held: Promise<void> | null = null;
  let release = () => {};
  let open = 0;
  let cut = 0;
  const server = http.createServer(async (req, res) => {
    open += 1;
    res.on('close', () => {
      open -= 1;
      if (!res.writableEnded) cut += 1;
    });
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    const answer = await fetch(`${target}${req.url}`, {
      method: req.method,
      headers: { 'content-type': 'application/json', authorization: req.headers.authorization ?? '' },
      body: req.method === 'GET' ? undefined : Buffer.concat(parts),
    });
    const text = await answer.text();
    await sleep(delayMs);
    while (held) await held;
    if (res.destroyed) return;
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
    res.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hold: () => {
      held ??= new Promise<void>((resolve) => (release = resolve));
    },
    release: () => {
      held = null;
      release();
    },
    open: () => open,
    cut: () => cut,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
