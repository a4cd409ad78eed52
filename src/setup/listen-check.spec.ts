import { createServer } from 'node:net';

import { checkPortFree, describeListenError, ListenError } from './listen-check';

describe('listen check', () => {
  it('a port in use is a ListenError naming the port and the fix', async () => {
    const occupant = createServer();
    const port = await new Promise<number>((resolve) =>
      occupant.listen(0, '127.0.0.1', () => resolve((occupant.address() as { port: number }).port)),
    );
    try {
      const err = await checkPortFree(port, '127.0.0.1').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ListenError);
      expect((err as Error).message).toBe(`port ${port} is in use (EADDRINUSE): stop the other process or set PORT`);
    } finally {
      await new Promise((resolve) => occupant.close(resolve));
    }
    // Released: free again, and port 0 always binds.
    await expect(checkPortFree(port, '127.0.0.1')).resolves.toBeUndefined();
    await expect(checkPortFree(0, '127.0.0.1')).resolves.toBeUndefined();
  });

  it('knows EACCES and EADDRNOTAVAIL, and nothing else', () => {
    expect(describeListenError({ code: 'EACCES' }, 80, '0.0.0.0')).toContain('set PORT to 1024 or above');
    expect(describeListenError({ code: 'EADDRNOTAVAIL' }, 3000, '10.9.9.9')).toContain('cannot listen on 10.9.9.9 (EADDRNOTAVAIL)');
    expect(describeListenError(new Error('x'), 3000, '0.0.0.0')).toBeUndefined();
  });
});
