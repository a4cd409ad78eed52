import type { DataSource } from 'typeorm';

import { connectPostgres, DatabaseConnectError, describeConnectError } from './database-connect';

const URL = 'postgres://parley:s3cret-pw@db.internal:6543/parley?sslmode=require';
const failure = (code: string, message = code) => Object.assign(new Error(message), { code });

describe('describeConnectError', () => {
  it('names the host and port, the code and the fix, never the password or the parameters', () => {
    const line = describeConnectError(failure('ECONNREFUSED'), URL)!;
    expect(line).toBe('cannot reach the database at db.internal:6543 (ECONNREFUSED): start PostgreSQL or fix DATABASE_URL');
    for (const code of ['ENOTFOUND', '28P01', '3D000', '57P03', 'ETIMEDOUT']) {
      const text = describeConnectError(failure(code), URL)!;
      expect(text).toContain(`(${code})`);
      expect(text).not.toMatch(/s3cret|sslmode/);
    }
    expect(describeConnectError(failure('28P01'), URL)).toContain('refused the login of user "parley"');
    expect(describeConnectError(failure('3D000'), URL)).toContain('database "parley" does not exist at db.internal:6543');
  });

  it("reads Node's code on an AggregateError (several addresses) and pg's timeout by its message", () => {
    const aggregate = Object.assign(new AggregateError([failure('ECONNREFUSED'), failure('ECONNREFUSED')]), { code: undefined });
    expect(describeConnectError(aggregate, 'postgres://localhost/x')).toContain('localhost:5432 (ECONNREFUSED)');
    expect(describeConnectError(new Error('Connection terminated due to connection timeout'), URL)).toContain('(ETIMEDOUT)');
  });

  it('knows nothing of other errors', () => {
    expect(describeConnectError(new Error('relation "x" does not exist'), URL)).toBeUndefined();
  });
});

describe('connectPostgres', () => {
  const ok = {} as DataSource;

  it('retries a connection error within the window, then answers', async () => {
    const open = jest.fn().mockRejectedValueOnce(failure('ECONNREFUSED')).mockRejectedValueOnce(failure('57P03')).mockResolvedValue(ok);
    await expect(connectPostgres(open, URL, 1000, 10)).resolves.toBe(ok);
    expect(open).toHaveBeenCalledTimes(3);
  });

  it('gives up after the window with the one-line diagnosis', async () => {
    const open = jest.fn().mockRejectedValue(failure('ECONNREFUSED'));
    const started = Date.now();
    const err = await connectPostgres(open, URL, 200, 50).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DatabaseConnectError);
    expect((err as Error).message).toBe(
      'cannot reach the database at db.internal:6543 (ECONNREFUSED): start PostgreSQL or fix DATABASE_URL',
    );
    expect(Date.now() - started).toBeLessThan(1000);
    expect(open.mock.calls.length).toBeGreaterThanOrEqual(3);
  });

  it('does not retry what no retry mends, and passes unknown errors on as they are', async () => {
    const login = jest.fn().mockRejectedValue(failure('28P01'));
    await expect(connectPostgres(login, URL, 1000, 10)).rejects.toBeInstanceOf(DatabaseConnectError);
    expect(login).toHaveBeenCalledTimes(1);
    const odd = new Error('something else');
    await expect(connectPostgres(jest.fn().mockRejectedValue(odd), URL, 1000, 10)).rejects.toBe(odd);
  });
});
