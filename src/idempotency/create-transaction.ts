import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

/** Where the interceptor leaves the request's CreateTransaction. */
export const CREATE_TRANSACTION = Symbol('parley:create-transaction');
/** Metadata on a handler: the index of its @InCreateTransaction() parameter (IdempotencyCoverage checks it). */
export const CREATE_TRANSACTION_PARAM = 'parley:create-transaction-param';

/**
 * The one transaction a creating POST makes its rows in (docs/security.md, "Idempotency keys").
 * With an Idempotency-Key, `run` also stores the key's outcome (what `work` returns: the answer
 * body) in that transaction, so the create and its outcome commit together: a retry after a crash
 * either finds both (and replays) or neither (and runs). Without a key it is a plain transaction.
 * `work` must return exactly the body the route answers with. A service that retries (a lost insert
 * race) may call `run` again: each call is its own transaction, and only a committed one stores.
 */
export interface CreateTransaction {
  run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T>;
  /**
   * For work of one statement: without an outcome to store beside it (no Idempotency-Key) it runs
   * as that statement alone, committed on its own, instead of BEGIN, the statement and COMMIT
   * (three round trips; a conversation created before every chat paid them).
   */
  runSingle<T>(work: (manager: EntityManager) => Promise<T>): Promise<T>;
}

export function plainTransaction(dataSource: DataSource): CreateTransaction {
  return { run: (work) => dataSource.transaction(work), runSingle: (work) => work(dataSource.manager) };
}

const createTransactionOf = createParamDecorator((_: unknown, context: ExecutionContext): CreateTransaction | undefined => {
  return (context.switchToHttp().getRequest() as Record<symbol, CreateTransaction | undefined>)[CREATE_TRANSACTION];
});

/**
 * The route's CreateTransaction (set by the `@Idempotent()` interceptor), for the service to make
 * its rows in. Every creating `@Idempotent()` route takes it; the app refuses to start otherwise.
 */
export const InCreateTransaction = (): ParameterDecorator => (target, key, index) => {
  if (key !== undefined) Reflect.defineMetadata(CREATE_TRANSACTION_PARAM, index, target.constructor.prototype[key] as object);
  createTransactionOf()(target, key, index);
};
