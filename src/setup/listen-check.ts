import { createServer } from 'node:net';

/** The server could not listen; the message is the one-line diagnosis (docs/operations.md, "Start-up failures"). */
export class ListenError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/** The one-line diagnosis of a failed listen, or undefined when it is not one this knows. */
export function describeListenError(err: unknown, port: number, host: string): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  switch (code) {
    case 'EADDRINUSE':
      return `port ${port} is in use (EADDRINUSE): stop the other process or set PORT`;
    case 'EACCES':
      return `no permission to listen on port ${port} (EACCES): set PORT to 1024 or above`;
    case 'EADDRNOTAVAIL':
      return `cannot listen on ${host} (EADDRNOTAVAIL): it is not an address of this machine; fix HOST`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot listen on ${host} (${code}): no such host; fix HOST`;
    default:
      return undefined;
  }
}

/** `work`, with a failed listen it knows turned into a ListenError. */
export async function diagnoseListen<T>(port: number, host: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    const diagnosis = describeListenError(err, port, host);
    throw diagnosis ? new ListenError(diagnosis, { cause: err }) : err;
  }
}

/**
 * Binds the port and lets it go, before the database is opened and the application built (seconds
 * on a large schema): a port in use fails the start at once. Port 0 always binds. The real listen
 * can still lose a race for the port; main.ts diagnoses that failure the same way.
 */
export function checkPortFree(port: number, host: string): Promise<void> {
  if (port === 0) return Promise.resolve();
  return diagnoseListen(
    port,
    host,
    () =>
      new Promise<void>((resolve, reject) => {
        const probe = createServer();
        probe.once('error', reject);
        probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
      }),
  );
}
