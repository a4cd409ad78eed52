import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import { GroupCommit } from '../database/group-commit';
import { RequestLogEntity } from './request-log.entity';
import { RequestLogsRepository } from './request-logs.repository';

/** Most rows in one INSERT (34 parameters each: far under PostgreSQL's 65,535). */
const MAX_BATCH = 200;

/**
 * Group commit of request logs written outside a thread transaction (docs/decisions.md, "Writes
 * are group-committed"). `write` resolves once the row is committed, so a call is answered only
 * after its log is durable; a batch is one multi-row INSERT, one commit, and takes every waiting
 * project's rows in turn.
 */
@Injectable()
export class RequestLogWriter implements BeforeApplicationShutdown {
  private readonly logger = new Logger('RequestLogWriter');
  private readonly batches: GroupCommit<RequestLogEntity>;

  constructor(logs: RequestLogsRepository, config: AppConfig) {
    this.batches = new GroupCommit<RequestLogEntity>({
      maxInFlight: config.groupCommitInFlight,
      gather: config.groupCommitGather,
      maxBatch: MAX_BATCH,
      flush: async (rows) => {
        await logs.insertMany(rows);
        return rows.map(() => ({ ok: true as const }));
      },
      onBatchFailed: (size, err) =>
        this.logger.warn(`batch of ${size} request logs failed (${(err as Error).message}); writing them one by one`),
    });
  }

  /** Flushes and rows written, for tests and metrics. */
  get stats(): { flushes: number; rows: number } {
    return { flushes: this.batches.stats.flushes, rows: this.batches.stats.items };
  }

  write(log: RequestLogEntity): Promise<void> {
    return this.batches.submit(log.projectId, log);
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.batches.drain();
  }
}
