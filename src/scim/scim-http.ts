import {
  applyDecorators,
  CallHandler,
  CanActivate,
  Controller,
  createParamDecorator,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  UseFilters,
  UseGuards,
  UseInterceptors,
} from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Observable, tap } from 'rxjs';

import { InstanceActor } from '../audit/instance-audit-log';
import { Public } from '../auth/auth.decorators';
import { SCIM_CONTENT_TYPE, scimError } from '../common/errors';
import { clientAddressOf } from '../common/http/wire-request';
import { IdempotencyInCore } from '../idempotency/idempotency.interceptor';
import { ScimExceptionFilter } from './scim-exception.filter';
import { ScimCredential, ScimTokensService } from './scim-tokens.service';

/** The caller of a `/scim/v2` request: its token's workspace, and where its resources live. */
export interface ScimClient extends ScimCredential {
  /** `{PUBLIC_URL}/scim/v2`, or the request's own origin's when PUBLIC_URL is not set: meta.location's base. */
  baseUrl: string;
  clientAddress: string | null;
}

const CLIENT = Symbol('parley.scimClient');
type ScimRequest = Request & { [CLIENT]?: ScimClient };

/**
 * PUBLIC_URL as the base of SCIM's locations (docs/security.md, "SCIM": the identity provider's
 * base URL is `{PUBLIC_URL}/scim/v2`); null when unset or not an http(s) URL.
 */
export function publicScimBase(publicUrl: string | undefined): string | null {
  if (!publicUrl) return null;
  try {
    const url = new URL(publicUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return `${url.origin}${url.pathname.replace(/\/+$/, '')}/scim/v2`;
  } catch {
    return null;
  }
}

/**
 * Authenticates `/scim/v2` (docs/security.md, "SCIM"): `Authorization: Bearer <SCIM token>`, one
 * indexed lookup of its SHA-256 hash (no comparison of secrets in this process), every request, so
 * a revocation holds at once on every instance. These routes are @Public() to the API-key guard;
 * an API key is not a SCIM token (401). Refusals are SCIM's 401 with `WWW-Authenticate: Bearer`.
 */
@Injectable()
export class ScimTokenGuard implements CanActivate {
  // PUBLIC_URL is read here until the OIDC sign-in's AppConfig.publicUrl exists (then: that).
  private readonly publicBase = publicScimBase(process.env.PUBLIC_URL);

  constructor(private readonly tokens: ScimTokensService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<ScimRequest>();
    const authorization = req.headers.authorization;
    const match = typeof authorization === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(authorization) : null;
    const credential = match ? await this.tokens.authenticate(match[1]) : null;
    if (!credential) {
      const detail = match ? 'The bearer token is not a live SCIM token' : 'Authorization: Bearer <SCIM token> is required';
      throw scimError(401, detail, undefined, { 'WWW-Authenticate': 'Bearer realm="scim"' });
    }
    req[CLIENT] = {
      ...credential,
      baseUrl: this.publicBase ?? `${req.protocol}://${req.host ?? 'localhost'}/scim/v2`,
      clientAddress: clientAddressOf(req.ip) ?? null,
    };
    return true;
  }
}

/** `@Scim() client: ScimClient`: the SCIM caller the guard authenticated. */
export const Scim = createParamDecorator((_: unknown, context: ExecutionContext): ScimClient => {
  const client = context.switchToHttp().getRequest<ScimRequest>()[CLIENT];
  if (!client) throw new Error('@Scim() used on a route without ScimTokenGuard');
  return client;
});

/**
 * Every SCIM answer is `application/scim+json` (RFC 7644 §3.1), and a created resource's URI is
 * in `Location` too (§3.3).
 */
@Injectable()
export class ScimResponseHeaders implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const res = context.switchToHttp().getResponse<Response>();
    const created = context.switchToHttp().getRequest<Request>().method === 'POST';
    res.setHeader('Content-Type', SCIM_CONTENT_TYPE);
    return next.handle().pipe(
      tap((body: unknown) => {
        const location = (body as { meta?: { location?: unknown } } | undefined)?.meta?.location;
        if (created && typeof location === 'string') res.setHeader('Location', location);
      }),
    );
  }
}

/** The audit trail's actor of a SCIM change: the token (docs/security.md, "Audit trail"). */
export const scimActor = (client: ScimClient): InstanceActor => ({ kind: 'scim', keyId: client.tokenId, keyName: client.tokenName });

/**
 * A controller of the SCIM surface at `/scim/v2<path>` (docs/security.md, "SCIM"): public to the
 * API-key guard and authenticated by ScimTokenGuard, every error in SCIM's shape
 * (ScimExceptionFilter), `application/scim+json` answers. Not in the OpenAPI document: RFC 7644
 * is its specification. SCIM has no Idempotency-Key: a POST sent again is refused as `uniqueness`
 * (the same userName or displayName), so the idempotency interceptor stays off.
 */
export const ScimController = (path: string) =>
  applyDecorators(
    Controller(`scim/v2${path}`),
    Public(),
    UseGuards(ScimTokenGuard),
    UseFilters(ScimExceptionFilter),
    UseInterceptors(ScimResponseHeaders),
    IdempotencyInCore(),
    ApiExcludeController(),
  );
