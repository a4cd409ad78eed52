import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

import type { INestApplication } from '@nestjs/common';

/**
 * How long a request still running at SIGTERM may take to finish before the process stops anyway
 * (compose's stop_grace_period is 30 s; a model call or stream can be long). docs/operations.md.
 */
const DRAIN_LIMIT_MS = 25_000;
/** After cutting the requests still running, how long their calls get to record what they produced. */
const RECORD_CUT_CALLS_MS = 500;

/**
 * SIGTERM/SIGINT: stop accepting connections, close every socket with no request in flight at
 * once (idle keep-alive clients, connections that sent nothing yet), answer the requests and
 * streams still running with `Connection: close` and let them finish, then close the application
 * (database pool or PGlite, DATA_DIR lock). Node's own server.close() leaves a connection that has
 * not completed a request open until headersTimeout, which held shutdown for seconds to minutes.
 * A second signal (a second Ctrl-C) stops waiting: the requests still running are cut as if their
 * clients had left, so their calls record what the upstream produced, and then the application closes
 * as on the first (the log writers flush); before, Node's default handler ended the process at once.
 */
export function shutDownGracefully(app: INestApplication, log: (line: string) => void): void {
  const server = app.getHttpServer() as Server;
  const inFlight = new Map<Socket, number>();
  const responses = new Set<ServerResponse>();
  let closing = false;
  let drained: () => void = () => undefined;
  let forced: () => void = () => undefined;
  let cutting = false;

  const settle = (socket: Socket) => {
    if (!closing || (inFlight.get(socket) ?? 0) > 0) return;
    socket.end();
    socket.destroySoon?.();
    if ([...inFlight.values()].every((n) => n === 0)) drained();
  };
  server.on('connection', (socket: Socket) => {
    inFlight.set(socket, 0);
    socket.once('close', () => {
      inFlight.delete(socket);
      if (closing && [...inFlight.values()].every((n) => n === 0)) drained();
    });
  });
  server.on('request', (req, res) => {
    const socket = req.socket;
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    responses.add(res);
    if (closing) res.setHeader('Connection', 'close');
    res.once('close', () => {
      responses.delete(res);
      inFlight.set(socket, Math.max(0, (inFlight.get(socket) ?? 1) - 1));
      settle(socket);
    });
  });

  const stop = async (signal: NodeJS.Signals) => {
    if (closing) {
      // A third signal while closing hangs (a pool that will not close): stop at once, as Node would.
      if (cutting) process.exit(130);
      cutting = true;
      log(`${signal} again: cutting ${responses.size} request(s) still running`);
      forced();
      return;
    }
    closing = true;
    log(`${signal}: closing idle connections, finishing ${[...inFlight.values()].reduce((a, n) => a + n, 0)} request(s) in flight`);
    const allDone = new Promise<void>((resolve) => (drained = resolve));
    server.close();
    for (const res of responses) if (!res.headersSent) res.setHeader('Connection', 'close');
    for (const socket of inFlight.keys()) settle(socket);
    if ([...inFlight.values()].every((n) => n === 0)) drained();
    const limit = new Promise<void>((resolve) => setTimeout(resolve, DRAIN_LIMIT_MS).unref());
    const cut = new Promise<void>((resolve) => (forced = resolve));
    await Promise.race([allDone, limit, cut]);
    const running = responses.size;
    for (const socket of inFlight.keys()) socket.destroy();
    // A cut call records its log when it sees its client go (the abort), after this tick.
    if (running > 0) await new Promise<void>((resolve) => setTimeout(resolve, RECORD_CUT_CALLS_MS));
    await app.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}
