import {
  Body,
  CanActivate,
  Controller,
  Delete,
  ExecutionContext,
  Get,
  HttpCode,
  HttpStatus,
  Post,
  Req,
  Res,
  UseGuards,
} from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';

import { AdminOrProject, AnyScope, CurrentPrincipal, Public } from '../auth/auth.decorators';
import { Principal } from '../auth/principal';
import { crossSiteRefusal, isJsonContentType, SESSION_COOKIE, sessionTokenOf } from '../auth/session-cookie';
import { forbidden, resourceError } from '../common/errors';
import { clientAddressOf } from '../common/http/wire-request';
import { ApiErrors, RESOURCE_ERROR_SCHEMA } from '../common/swagger/error-responses';
import { Idempotent } from '../idempotency/idempotency.interceptor';
import { ConsoleSessionDto, ConsoleSessionEndedDto, CreateConsoleSessionDto } from './console-session.dto';
import { ConsoleSessionsService, SESSION_TTL_MS } from './console-sessions.service';

/** HttpOnly (no script reads it), SameSite=Strict (no other site sends it), Secure when the request came over https. */
function cookieOptions(req: Request) {
  return { httpOnly: true, sameSite: 'strict' as const, secure: req.secure, path: '/' };
}

/** Refuses another site's request (docs/security.md, "Console sign-in"); runs before the body is validated. */
const sameOrigin: CanActivate = {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<Request>();
    const refusal = crossSiteRefusal(req.headers, req.host);
    if (refusal) throw forbidden(refusal);
    return true;
  },
};

/** Sign-in takes `application/json` only: an HTML form can post text/plain that parses as JSON (login CSRF). */
const jsonOnly: CanActivate = {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<Request>();
    if (!isJsonContentType(req.headers)) {
      throw resourceError(HttpStatus.UNSUPPORTED_MEDIA_TYPE, 'Sign-in takes a JSON body sent with Content-Type: application/json');
    }
    return true;
  },
};

/** The client's address for the sign-in throttle: `req.ip` (X-Forwarded-For from a trusted proxy) when it is an IP, else the socket's. */
function clientOf(req: Request): string {
  const ip = clientAddressOf(req.ip) ?? clientAddressOf(req.socket.remoteAddress) ?? 'unknown';
  return /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1] ?? ip;
}

function sessionDto(principal: Principal, expiresAt: Date | null): ConsoleSessionDto {
  const project = principal.kind === 'project' ? principal : null;
  return {
    object: 'console.session',
    kind: principal.kind,
    workspace: project?.workspaceSlug ?? null,
    project: project?.projectSlug ?? null,
    scopes: principal.scopes ? [...principal.scopes] : null,
    environments: principal.environments ? [...principal.environments] : null,
    expiresAt: expiresAt?.toISOString() ?? null,
  };
}

@ApiTags('Console sessions')
@Controller('v2/console/session')
export class ConsoleSessionController {
  constructor(private readonly sessions: ConsoleSessionsService) {}

  // Sign-in makes a new session each time; an Idempotency-Key is checked for its form only (no key, no scope to store under).
  @Idempotent('unscoped')
  @Public()
  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Sign in to the console',
    description:
      'Exchanges a project key or the admin key for a session cookie (HttpOnly, SameSite=Strict, Secure over https). The key is not kept. ' +
      'JSON only (`Content-Type: application/json`), from the same origin only; failed attempts are throttled per client address and per key; ' +
      'a session cookie the request carries is revoked (docs/security.md, "Console sign-in").',
  })
  @ApiOkResponse({ type: ConsoleSessionDto })
  @ApiErrors(400, 401, 403)
  @ApiResponse({ status: 415, description: 'The body was not sent as `application/json`', schema: RESOURCE_ERROR_SCHEMA })
  @ApiResponse({
    status: 429,
    description: 'Too many failed sign-ins from this address or for this key (Retry-After)',
    schema: RESOURCE_ERROR_SCHEMA,
  })
  @UseGuards(sameOrigin, jsonOnly)
  async signIn(
    @Body() dto: CreateConsoleSessionDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ConsoleSessionDto> {
    const session = await this.sessions.start(dto.key, clientOf(req), sessionTokenOf(req.headers));
    res.cookie(SESSION_COOKIE, session.token, { ...cookieOptions(req), maxAge: SESSION_TTL_MS });
    return sessionDto(session.principal, session.expiresAt);
  }

  @AdminOrProject()
  @AnyScope()
  @Get()
  @ApiSecurity('api-key')
  @ApiOperation({
    summary: 'Who the console is signed in as',
    description: 'With a session cookie, or with a key (then `expiresAt` is null).',
  })
  @ApiOkResponse({ type: ConsoleSessionDto })
  current(@CurrentPrincipal() principal: Principal, @Req() req: Request): Promise<ConsoleSessionDto> {
    return this.sessions.expiryOf(sessionTokenOf(req.headers)).then((expiresAt) => sessionDto(principal, expiresAt));
  }

  @AdminOrProject()
  @AnyScope()
  @Delete()
  @ApiSecurity('api-key')
  @ApiOperation({
    summary: 'Sign out of the console',
    description:
      'Revokes the session on every instance and clears the cookie. Needs the `X-Parley-CSRF` header; refused from another origin.',
  })
  @ApiOkResponse({ type: ConsoleSessionEndedDto })
  @ApiErrors(403)
  @UseGuards(sameOrigin)
  async signOut(@Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<ConsoleSessionEndedDto> {
    const token = sessionTokenOf(req.headers);
    const ended = token ? await this.sessions.end(token) : false;
    res.clearCookie(SESSION_COOKIE, cookieOptions(req));
    return { object: 'console.session.ended', ended };
  }
}
