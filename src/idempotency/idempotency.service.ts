import { createHash } from 'node:crypto';

import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { EntityManager } from 'typeorm';

import { SecretBox } from '../common/crypto/secret-box';
import { ApiException, resourceError } from '../common/errors';
import { startPeriodic, stopPeriodic } from '../common/periodic';
import { AppConfig } from '../config/app-config';
import { IdempotencyRepository } from './idempotency.repository';
import { Claim, StoredOutcome } from './idempotency.types';

const EXPIRY = 'idempotency-expiry';

/** The answers a surface gives to a key it cannot run: its own error bodies. */
export interface IdempotencyErrors {
  /** The same key while the first request is still running: 409. */
  inFlight: () => ApiException;
  /** The same key with another request: 422. */
  mismatch: () => ApiException;
}

/**
 * Idempotency keys (docs/security.md, "Idempotency keys"): the first request with a key runs and
 * its outcome is stored; the same key with the same request within 24 h replays that outcome; with
 * another request it is a 422; while the first still runs, a 409. Keys are scoped to the caller's
 * project. A claim whose instance died is taken over once its lease has run out.
 */
@Injectable()
export class IdempotencyService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Idempotency');
  /** Longer than any call can run: every provider attempt at its timeout, plus a margin. */
  private readonly leaseSeconds: number;

  constructor(
    private readonly repo: IdempotencyRepository,
    config: AppConfig,
    private readonly box: SecretBox,
    private readonly schedule: SchedulerRegistry,
  ) {
    this.leaseSeconds =
      Math.ceil((config.providerTimeoutMs * (config.providerMaxRetries + 1)) / 1000) + config.idempotencyLeaseMarginSeconds;
  }

  onModuleInit(): void {
    startPeriodic(this.schedule, EXPIRY, 3_600_000, () => void this.repo.deleteExpired().catch(() => undefined));
  }

  onModuleDestroy(): void {
    stopPeriodic(this.schedule, EXPIRY);
  }

  /** A stable digest of what identifies a request (route and body). */
  hashOf(...parts: unknown[]): string {
    return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
  }

  /**
   * The outcome to store for an answer; one holding a secret shown once (a created key) is sealed
   * with PARLEY_SECRET_KEY, bound to this scope and key, or withheld when no key is set to seal it.
   */
  outcomeOf(scopeId: string, key: string, status: number, body: unknown, holdsSecret: boolean): StoredOutcome {
    if (!holdsSecret) return { kind: 'response', status, body };
    if (!this.box.available) return { kind: 'withheld', status };
    return { kind: 'sealed', sealed: this.box.encrypt(JSON.stringify({ status, body }), sealContext(scopeId, key)) };
  }

  /** A stored answer as it is replayed: a sealed one opened, a withheld one a 409 that says why. */
  opened(scopeId: string, key: string, outcome: StoredOutcome): StoredOutcome {
    const notKept = (why: string) =>
      resourceError(
        409,
        `This Idempotency-Key's request created a secret that is shown only once and ${why}: revoke the key it created and create another`,
      );
    if (outcome.kind === 'sealed') {
      let opened: string;
      try {
        opened = this.box.decrypt(outcome.sealed, sealContext(scopeId, key));
      } catch {
        throw notKept('cannot be opened with this PARLEY_SECRET_KEY');
      }
      const { status, body } = JSON.parse(opened) as { status: number; body: unknown };
      return { kind: 'response', status, body };
    }
    if (outcome.kind === 'withheld') throw notKept('was not kept (PARLEY_SECRET_KEY is not set)');
    return outcome;
  }

  async claim(scopeId: string, key: string, requestHash: string, errors: IdempotencyErrors): Promise<Claim> {
    if (await this.repo.claim(scopeId, key, requestHash, this.leaseSeconds)) return { type: 'new' };
    const row = await this.repo.find(scopeId, key);
    // Deleted between the two statements (its request failed and gave the key back): try once more.
    if (!row)
      return (await this.repo.claim(scopeId, key, requestHash, this.leaseSeconds)) ? { type: 'new' } : Promise.reject(errors.inFlight());
    if (row.request_hash !== requestHash) throw errors.mismatch();
    if (row.state !== 'completed' || !row.outcome) throw errors.inFlight();
    return { type: 'replay', outcome: row.outcome };
  }

  complete(scopeId: string, key: string, outcome: StoredOutcome, manager?: EntityManager): Promise<void> {
    return this.repo.complete(scopeId, key, outcome, manager);
  }

  /** Never throws: the request's own answer matters more; the lease frees the key anyway. */
  async release(scopeId: string, key: string): Promise<void> {
    await this.repo.release(scopeId, key).catch((err) => this.logger.warn(`could not release idempotency key: ${(err as Error).message}`));
  }

  /** A failure a retry would meet again is stored (4xx but 408/409/429); anything else frees the key. */
  async settleFailure(scopeId: string, key: string, err: unknown): Promise<void> {
    if (err instanceof ApiException) {
      const status = err.getStatus();
      if (status >= 400 && status < 500 && ![408, 409, 429, 499].includes(status)) {
        await this.complete(scopeId, key, { kind: 'error', status, body: err.body, headers: err.headers }).catch(() =>
          this.release(scopeId, key),
        );
        return;
      }
    }
    await this.release(scopeId, key);
  }
}

const sealContext = (scopeId: string, key: string) => `idempotency|${scopeId}|${key}`;
