import type { DataSource } from 'typeorm';

import { pipelinedTransaction } from './pipelined-transaction';
import { queryRows } from './prepared-statements';

/**
 * A pooled client as pipelinedTransaction uses it, with PostgreSQL's transaction status: the
 * statements matching `failing` fail, and ROLLBACK fails too when `rollbackFails` (the server went
 * away). The happy and the failing paths against a real database are in test/medium/turn-writer.spec.ts.
 */
function fakePool(options: { failing: RegExp; rollbackFails?: boolean }) {
  const sent: string[] = [];
  const released: (Error | boolean | undefined)[] = [];
  let status = 'I';
  const client = {
    query(config: string | { text: string }) {
      const text = typeof config === 'string' ? config : config.text;
      sent.push(text);
      if (text === 'BEGIN') status = 'T';
      else if (text === 'COMMIT') status = 'I';
      else if (text === 'ROLLBACK') {
        if (options.rollbackFails) return Promise.reject(new Error('Connection terminated unexpectedly'));
        status = 'I';
      } else if (options.failing.test(text)) {
        status = 'E';
        return Promise.reject(new Error(`${text} failed`));
      }
      return Promise.resolve({ rows: [] });
    },
    getTransactionStatus: () => status,
    release: (err?: Error | boolean) => void released.push(err),
  };
  return { pool: { connect: () => Promise.resolve(client) }, sent, released };
}

const dataSource = { createEntityManager: () => ({}) } as unknown as DataSource;

describe('pipelinedTransaction', () => {
  it('rolls back a transaction whose statement failed before COMMIT was sent, and gives the connection back clean', async () => {
    const { pool, sent, released } = fakePool({ failing: /^UPDATE/ });
    const work = pipelinedTransaction(dataSource, pool, async (manager, pipeline) => {
      await pipeline.together(() => queryRows(manager, 'UPDATE threads SET last_seq = 1', []));
    });
    await expect(work).rejects.toThrow('UPDATE threads SET last_seq = 1 failed');
    expect(sent).toEqual(['BEGIN', 'UPDATE threads SET last_seq = 1', 'ROLLBACK']);
    expect(released).toEqual([undefined]);
  });

  it('closes the connection instead of pooling it when the rollback itself fails, and still throws the first error', async () => {
    const { pool, sent, released } = fakePool({ failing: /^UPDATE/, rollbackFails: true });
    const work = pipelinedTransaction(dataSource, pool, async (manager, pipeline) => {
      await pipeline.together(() => queryRows(manager, 'UPDATE threads SET last_seq = 1', []));
    });
    await expect(work).rejects.toThrow('UPDATE threads SET last_seq = 1 failed');
    expect(sent.at(-1)).toBe('ROLLBACK');
    expect(released).toHaveLength(1);
    expect((released[0] as Error).message).toBe('Connection terminated unexpectedly');
  });

  it('sends neither BEGIN nor COMMIT when the work sent nothing', async () => {
    const { pool, sent, released } = fakePool({ failing: /^$/ });
    await expect(pipelinedTransaction(dataSource, pool, async (_manager, pipeline) => pipeline.commit().then(() => 'done'))).resolves.toBe(
      'done',
    );
    expect(sent).toEqual([]);
    expect(released).toEqual([undefined]);
  });
});
