import {
  applyDecorators,
  CallHandler,
  ExecutionContext,
  HttpStatus,
  Injectable,
  NestInterceptor,
  SetMetadata,
  UseInterceptors,
} from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { from, Observable, of, throwError } from 'rxjs';
import { catchError, mergeMap } from 'rxjs/operators';
import { DataSource } from 'typeorm';

import { credentialOf, RequestWithPrincipal } from '../auth/principal';
import { ApiException, badRequest, resourceError } from '../common/errors';
import { answerStatusOf } from '../common/http/answer-status';
import { rawBodyDigest } from '../common/http/json-body';
import { inputRulesOf } from '../common/validation';
import { CREATE_TRANSACTION, CreateTransaction, plainTransaction } from './create-transaction';
import { IdempotencyService } from './idempotency.service';
import { ADMIN_SCOPE, IDEMPOTENCY_MESSAGES, isValidIdempotencyKey } from './idempotency.types';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
const REPLAYED_HEADER = 'Idempotent-Replayed';
export const IN_CORE = 'parley:idempotency-in-core';

/**
 * Marks routes whose idempotency the invocation core handles itself (it stores the outcome in the
 * transaction that appends the thread turns), so the interceptor leaves them alone.
 */
export const IdempotencyInCore = () => SetMetadata(IN_CORE, true);

/** The header's value, when the request carries one; a malformed one is a 400. */
export function idempotencyKeyOf(headers: Request['headers'], invalid: () => ApiException): string | undefined {
  const value = headers[IDEMPOTENCY_KEY_HEADER];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !isValidIdempotencyKey(value)) throw invalid();
  return value;
}

const INVALID_KEY = 'Idempotency-Key: must be 1 to 255 visible ASCII characters';

/**
 * A malformed key is a 400 with the endpoint's own documented message (its body DTO's, as the
 * validation pipe would answer; "Invalid request body" by default) and the reason in `details`.
 */
function invalidKeyFor(context: ExecutionContext): () => ApiException {
  const types: unknown[] = Reflect.getMetadata('design:paramtypes', context.getClass().prototype, context.getHandler().name) ?? [];
  const message = types.map((type) => (typeof type === 'function' ? inputRulesOf(type).message : undefined)).find(Boolean);
  return () => badRequest(message ?? 'Invalid request body', [INVALID_KEY]);
}

/**
 * `Idempotency-Key` on every POST of the `/v2` API (docs/security.md, "Idempotency keys"): the
 * first request runs and its answer is stored; a retry with the same key and body gets that answer
 * again (with `Idempotent-Replayed: true`), without running the handler. Bound per route with
 * `@Idempotent()`, not globally: a global interceptor puts Nest's rxjs pipeline on every request,
 * the invoke hot path included (docs/performance.md). IdempotencyCoverage checks at boot that
 * every POST route has `@Idempotent()` or `@IdempotencyInCore()`.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly idempotency: IdempotencyService,
    private readonly reflector: Reflector,
    private readonly dataSource: DataSource,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<Request & RequestWithPrincipal>();
    if (req.method !== 'POST') return next.handle();
    const key = idempotencyKeyOf(req.headers, invalidKeyFor(context));
    const slot = req as unknown as Record<symbol, CreateTransaction>;
    if (key === undefined || !req.principal) {
      slot[CREATE_TRANSACTION] = plainTransaction(this.dataSource);
      return next.handle();
    }
    const scope = req.principal.kind === 'project' ? req.principal.projectId : ADMIN_SCOPE;
    const status = this.reflector.get<number | undefined>(HTTP_CODE_METADATA, context.getHandler()) ?? HttpStatus.CREATED;
    const res = context.switchToHttp().getResponse<Response>();
    // Bound to the credential: another key's retry is a different request (422), never a replay of this one's answer.
    const hash = this.idempotency.hashOf(req.method, req.originalUrl, rawBodyDigest(req), credentialOf(req.principal));
    const errors = {
      inFlight: () => resourceError(409, IDEMPOTENCY_MESSAGES.inFlight),
      mismatch: () => resourceError(422, IDEMPOTENCY_MESSAGES.mismatch),
    };
    const holdsSecret = this.reflector.get<boolean | undefined>(IDEMPOTENT_SECRET_ANSWER, context.getHandler()) === true;
    // A body marked with its own status (a 202: common/http/answer-status.ts) is stored, and replayed, with it.
    const outcomeOf = (body: unknown) => this.idempotency.outcomeOf(scope, key, answerStatusOf(body) ?? status, body ?? null, holdsSecret);
    return from(this.idempotency.claim(scope, key, hash, errors)).pipe(
      mergeMap((claim) => {
        if (claim.type === 'replay') {
          res.setHeader(REPLAYED_HEADER, 'true');
          const outcome = this.idempotency.opened(scope, key, claim.outcome);
          if (outcome.kind === 'error') return throwError(() => new ApiException(outcome.status, outcome.body, outcome.headers));
          if (outcome.kind === 'response') {
            res.status(outcome.status);
            return of(outcome.body);
          }
          return throwError(() => errors.mismatch());
        }
        // A create stores its outcome in its own transaction (CreateTransaction); an update, after it.
        let stored = false;
        const run: CreateTransaction['run'] = async (work) => {
          const body = await this.dataSource.transaction(async (manager) => {
            const answer = await work(manager);
            await this.idempotency.complete(scope, key, outcomeOf(answer), manager);
            return answer;
          });
          stored = true;
          return body;
        };
        // The outcome is a statement of its own beside the work: a transaction either way.
        slot[CREATE_TRANSACTION] = { run, runSingle: run };
        return next.handle().pipe(
          mergeMap((body) => (stored ? of(body) : from(this.idempotency.complete(scope, key, outcomeOf(body)).then(() => body)))),
          catchError((err) => from(this.idempotency.settleFailure(scope, key, err)).pipe(mergeMap(() => throwError(() => err)))),
        );
      }),
    );
  }
}

/** Metadata: the route's answer holds a secret shown once (a created key): stored sealed (see Idempotent). */
export const IDEMPOTENT_SECRET_ANSWER = 'parley:idempotent-secret-answer';

/** Metadata: the route's outcome needs no transaction of its create (see Idempotent). */
export const IDEMPOTENT_WITHOUT_CREATE = 'parley:idempotent-without-create';

/**
 * Idempotency-Key on this POST route (see IdempotencyInterceptor). A creating route (`'create'`,
 * the default) makes its rows through its `@InCreateTransaction()` parameter, so the key's outcome
 * commits with them. The others store it right after the handler: `'repeatable'`, a route that
 * leaves the same state when it runs twice (an update replacing fields, an import with derived
 * ids); `'unscoped'`, a public route whose key has no project to be stored under.
 * `answerHoldsSecret`: the answer shows a secret once (a created key); its stored outcome is
 * encrypted with PARLEY_SECRET_KEY, never kept in plaintext (docs/security.md, "Idempotency keys").
 */
export const Idempotent = (kind: 'create' | 'repeatable' | 'unscoped' = 'create', options: { answerHoldsSecret?: boolean } = {}) =>
  applyDecorators(
    UseInterceptors(IdempotencyInterceptor),
    ...(kind === 'create' ? [] : [SetMetadata(IDEMPOTENT_WITHOUT_CREATE, kind)]),
    ...(options.answerHoldsSecret ? [SetMetadata(IDEMPOTENT_SECRET_ANSWER, true)] : []),
  );
