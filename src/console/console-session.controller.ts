import {
  Body,
  CanActivate,
  Controller,
  Delete,
  ExecutionContext,
  Get,
  HttpCode,
  HttpStatus,
  Injectable,
  Post,
  Req,
  Res,
  UseGuards,
} from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';

import { AnyScope, Caller, CurrentCaller, Public, SignedIn } from '../auth/auth.decorators';
import { Principal } from '../auth/principal';
import { crossSiteRefusal, isJsonContentType, SESSION_COOKIE, sessionTokenOf } from '../auth/session-cookie';
import { forbidden, resourceError } from '../common/errors';
import { ApiErrors, RESOURCE_ERROR_SCHEMA } from '../common/swagger/error-responses';
import { AppConfig } from '../config/app-config';
import { Idempotent } from '../idempotency/idempotency.interceptor';
import { clientOf, newSessionCookieOptions, sessionCookieOptions } from './console-cookies';
import { ConsoleSessionDto, ConsoleSessionEndedDto, CreateConsoleSessionDto } from './console-session.dto';
import { ConsoleSessionsService } from './console-sessions.service';
import { PersonSessions } from './person-session';

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

/** PARLEY_KEY_SIGN_IN=off: the console takes no key (docs/security.md, "Sign-in"); keys keep working for the API. */
@Injectable()
export class KeySignInSwitch implements CanActivate {
  constructor(private readonly config: AppConfig) {}

  canActivate(): boolean {
    if (!this.config.signIn.keySignIn) {
      throw forbidden(
        'Signing in to the console with a key is turned off on this server (PARLEY_KEY_SIGN_IN=off): sign in with single sign-on',
      );
    }
    return true;
  }
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
  constructor(
    private readonly sessions: ConsoleSessionsService,
    private readonly people: PersonSessions,
    private readonly config: AppConfig,
  ) {}

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
      'a session cookie the request carries is revoked (docs/security.md, "Console sign-in"). ' +
      'A 403 when the server turned key sign-in off (PARLEY_KEY_SIGN_IN=off).',
  })
  @ApiOkResponse({ type: ConsoleSessionDto })
  @ApiErrors(400, 401, 403)
  @ApiResponse({ status: 415, description: 'The body was not sent as `application/json`', schema: RESOURCE_ERROR_SCHEMA })
  @ApiResponse({
    status: 429,
    description: 'Too many failed sign-ins from this address or for this key (Retry-After)',
    schema: RESOURCE_ERROR_SCHEMA,
  })
  @UseGuards(KeySignInSwitch, sameOrigin, jsonOnly)
  async signIn(
    @Body() dto: CreateConsoleSessionDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ConsoleSessionDto> {
    const session = await this.sessions.start(dto.key, clientOf(req), sessionTokenOf(req.headers));
    res.cookie(SESSION_COOKIE, session.token, newSessionCookieOptions(req, this.secureByPublicUrl));
    return sessionDto(session.principal, session.expiresAt);
  }

  @SignedIn()
  @AnyScope()
  @Get()
  @ApiSecurity('api-key')
  @ApiOperation({
    summary: 'Who the console is signed in as',
    description:
      'With a session cookie, or with a key (then `expiresAt` is null). A person signed in with OpenID Connect is `kind: "user"`, ' +
      'with or without a project chosen (X-Parley-Project): their user, roles and the projects they may choose (docs/console.md, "Signing in").',
  })
  @ApiOkResponse({ type: ConsoleSessionDto })
  async current(@CurrentCaller() caller: Caller, @Req() req: Request): Promise<ConsoleSessionDto> {
    const expiresAt = await this.sessions.expiryOf(sessionTokenOf(req.headers));
    return caller.person ? this.people.describe(caller.person, caller.principal, expiresAt) : sessionDto(caller.principal!, expiresAt);
  }

  @SignedIn()
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
    res.clearCookie(SESSION_COOKIE, sessionCookieOptions(req, this.secureByPublicUrl));
    return { object: 'console.session.ended', ended };
  }

  /** PUBLIC_URL is https: the cookie is Secure even when a proxy does not say the request came over https. */
  private get secureByPublicUrl(): boolean {
    return this.config.signIn.publicUrl?.startsWith('https:') ?? false;
  }
}
