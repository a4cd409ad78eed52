import { Body, Controller, Delete, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AdminOrProject, AnyScope, CurrentPrincipal, Public } from '../auth/auth.decorators';
import { Principal } from '../auth/principal';
import { SESSION_COOKIE, sessionTokenOf } from '../auth/session-cookie';
import { ApiErrors } from '../common/swagger/error-responses';
import { Idempotent } from '../idempotency/idempotency.interceptor';
import { ConsoleSessionDto, ConsoleSessionEndedDto, CreateConsoleSessionDto } from './console-session.dto';
import { ConsoleSessionsService, SESSION_TTL_MS } from './console-sessions.service';

/** HttpOnly (no script reads it), SameSite=Strict (no other site sends it), Secure when the request came over https. */
function cookieOptions(req: Request) {
  return { httpOnly: true, sameSite: 'strict' as const, secure: req.secure, path: '/' };
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
    description: 'Exchanges a project key or the admin key for a session cookie (HttpOnly, SameSite=Strict, Secure over https). The key is not kept.',
  })
  @ApiOkResponse({ type: ConsoleSessionDto })
  @ApiErrors(400, 401)
  async signIn(@Body() dto: CreateConsoleSessionDto, @Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<ConsoleSessionDto> {
    const session = await this.sessions.start(dto.key);
    res.cookie(SESSION_COOKIE, session.token, { ...cookieOptions(req), maxAge: SESSION_TTL_MS });
    return sessionDto(session.principal, session.expiresAt);
  }

  @AdminOrProject()
  @AnyScope()
  @Get()
  @ApiSecurity('api-key')
  @ApiOperation({ summary: 'Who the console is signed in as', description: 'With a session cookie, or with a key (then `expiresAt` is null).' })
  @ApiOkResponse({ type: ConsoleSessionDto })
  current(@CurrentPrincipal() principal: Principal, @Req() req: Request): Promise<ConsoleSessionDto> {
    return this.sessions.expiryOf(sessionTokenOf(req.headers)).then((expiresAt) => sessionDto(principal, expiresAt));
  }

  @AdminOrProject()
  @AnyScope()
  @Delete()
  @ApiSecurity('api-key')
  @ApiOperation({ summary: 'Sign out of the console', description: 'Revokes the session on every instance and clears the cookie. Needs the `X-Parley-CSRF` header.' })
  @ApiOkResponse({ type: ConsoleSessionEndedDto })
  @ApiErrors(403)
  async signOut(@Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<ConsoleSessionEndedDto> {
    const token = sessionTokenOf(req.headers);
    const ended = token ? await this.sessions.end(token) : false;
    res.clearCookie(SESSION_COOKIE, cookieOptions(req));
    return { object: 'console.session.ended', ended };
  }
}
