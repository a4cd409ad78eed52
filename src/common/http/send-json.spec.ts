import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import { sendJson } from './send-json';

describe('sendJson', () => {
  it('answers the status and the JSON body with its type and byte length, and no ETag', async () => {
    const server = createServer((_req, res) => sendJson(res, 200, { text: 'héllo', n: 1 }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength('{"text":"héllo","n":1}')));
      expect(res.headers.get('etag')).toBeNull();
      expect(await res.json()).toEqual({ text: 'héllo', n: 1 });
    } finally {
      server.close();
    }
  });
});
