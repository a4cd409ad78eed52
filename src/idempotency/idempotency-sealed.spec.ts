import { SchedulerRegistry } from '@nestjs/schedule';

import { SecretBox } from '../common/crypto/secret-box';
import { ApiException } from '../common/errors';
import { AppConfig } from '../config/app-config';
import { IdempotencyRepository } from './idempotency.repository';
import { IdempotencyService } from './idempotency.service';

const config = { providerTimeoutMs: 1000, providerMaxRetries: 0, idempotencyLeaseMarginSeconds: 1 } as AppConfig;
const serviceWith = (box: SecretBox) => new IdempotencyService({} as IdempotencyRepository, config, box, new SchedulerRegistry());
const created = { id: 'key-id', key: 'pk_secret-shown-once' };

/** The ApiException `open` throws, or undefined. */
function refusalOf(open: () => unknown): ApiException | undefined {
  try {
    open();
  } catch (err) {
    return err as ApiException;
  }
  return undefined;
}

describe('stored outcomes of answers that hold a secret', () => {
  it('are sealed, open only for the same scope and key, and replay the answer as sent', () => {
    const service = serviceWith(new SecretBox('a'.repeat(43)));
    const outcome = service.outcomeOf('scope-1', 'idem-1', 200, created, true);
    expect(outcome).toEqual({ kind: 'sealed', sealed: expect.any(String) });
    expect(JSON.stringify(outcome)).not.toContain(created.key);
    expect(service.opened('scope-1', 'idem-1', outcome)).toEqual({ kind: 'response', status: 200, body: created });
    for (const [scope, key] of [
      ['scope-2', 'idem-1'],
      ['scope-1', 'idem-2'],
    ]) {
      const refusal = refusalOf(() => service.opened(scope, key, outcome));
      expect(refusal).toBeInstanceOf(ApiException);
      expect(refusal!.getStatus()).toBe(409);
      expect(refusal!.body).toEqual({ error: { message: expect.stringContaining('cannot be opened with this PARLEY_SECRET_KEY') } });
    }
  });

  it('are withheld without PARLEY_SECRET_KEY: the replay is a 409 that says why', () => {
    const service = serviceWith(new SecretBox(null));
    const outcome = service.outcomeOf('scope-1', 'idem-1', 200, created, true);
    expect(outcome).toEqual({ kind: 'withheld', status: 200 });
    const refusal = refusalOf(() => service.opened('scope-1', 'idem-1', outcome));
    expect(refusal).toBeInstanceOf(ApiException);
    expect(refusal!.getStatus()).toBe(409);
    expect(refusal!.body).toEqual({ error: { message: expect.stringContaining('PARLEY_SECRET_KEY is not set') } });
  });

  it('other answers are stored as sent', () => {
    const service = serviceWith(new SecretBox(null));
    expect(service.outcomeOf('s', 'k', 200, { id: 'thread' }, false)).toEqual({ kind: 'response', status: 200, body: { id: 'thread' } });
  });
});
