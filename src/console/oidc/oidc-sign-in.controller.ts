import { Controller, Get, Logger, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';

import { Public } from '../../auth/auth.decorators';
import { SESSION_COOKIE, sessionTokenOf } from '../../auth/session-cookie';
import { AppConfig } from '../../config/app-config';
import { clientOf, newSessionCookieOptions } from '../console-cookies';
import { SignInOptionsDto } from '../console-session.dto';
import { encodeFlow, FLOW_COOKIE, flowCookieOptions, flowOf } from './oidc-flow-cookie';
import { OidcSignInService } from './oidc-sign-in.service';
import { SignInError } from './sign-in-refusal';

/** Where a refused sign-in lands: the console's sign-in screen, which explains the code (docs/security.md, "Sign-in"). */
export const signInErrorLocation = (error: SignInError) => `/console/sign-in?signInError=${error}`;

/**
 * Sign-in with OpenID Connect (docs/security.md, "Sign-in"): browser navigations, answered with
 * redirects. Every refusal is a 302 to the console's sign-in screen with `?signInError=<code>`,
 * never an error page, and never carries a token or a code.
 */
@ApiTags('Console sessions')
@Controller('v2/console')
export class OidcSignInController {
  private readonly logger = new Logger('OidcSignIn');

  constructor(
    private readonly signIn: OidcSignInService,
    private readonly config: AppConfig,
  ) {}

  @Public()
  @Get('sign-in-options')
  @ApiOperation({
    summary: 'How one may sign in to the console',
    description: 'For the sign-in screen: whether single sign-on is configured, and whether a key is accepted (PARLEY_KEY_SIGN_IN).',
  })
  @ApiOkResponse({ type: SignInOptionsDto })
  options(): SignInOptionsDto {
    const { oidc, keySignIn } = this.config.signIn;
    return {
      object: 'console.sign_in_options',
      oidc: oidc !== null,
      keys: keySignIn,
      ...(oidc?.providerName ? { providerName: oidc.providerName } : {}),
    };
  }

  @Public()
  @Get('oidc/login')
  @ApiOperation({
    summary: 'Start signing in with the identity provider',
    description:
      'A redirect to the provider (authorization code flow with PKCE, state and nonce), with a short-lived HttpOnly cookie holding ' +
      "them for the callback. `returnTo`: a path of the console to land on afterwards (others are ignored). A 302 to the console's " +
      'sign-in screen with `?signInError=` when single sign-on is not configured or the provider cannot be reached.',
  })
  @ApiQuery({ name: 'returnTo', required: false, example: '/console/prompts' })
  @ApiResponse({ status: 302, description: "To the provider's authorization endpoint, or to `/console/sign-in?signInError=<code>`" })
  async login(@Req() req: Request, @Res() res: Response): Promise<void> {
    noStore(res);
    try {
      const started = await this.signIn.begin(req.query.returnTo);
      if (!started.ok) return res.redirect(302, signInErrorLocation(started.error));
      res.cookie(FLOW_COOKIE, encodeFlow(started.flow), flowCookieOptions(this.secure(req)));
      res.redirect(302, started.url);
    } catch (err) {
      this.logger.error(`Sign-in could not start: ${(err as Error)?.name ?? 'error'}`);
      res.redirect(302, signInErrorLocation('server_error'));
    }
  }

  @Public()
  @Get('oidc/callback')
  @ApiOperation({
    summary: 'Where the identity provider sends people back',
    description:
      'The redirect URI registered at the provider: `{PUBLIC_URL}/v2/console/oidc/callback`. Checks the answer (state, PKCE, the ID ' +
      "token's issuer, audience, expiry, nonce and signature; a verified e-mail in an allowed domain; an active user with a role), " +
      'sets the session cookie and redirects to the console; otherwise a 302 to `/console/sign-in?signInError=<code>`.',
  })
  @ApiResponse({ status: 302, description: 'To the console (signed in), or to `/console/sign-in?signInError=<code>`' })
  async callback(@Req() req: Request, @Res() res: Response): Promise<void> {
    noStore(res);
    const secure = this.secure(req);
    // The flow is for one callback, whatever its outcome.
    const { maxAge: _maxAge, ...flowCookie } = flowCookieOptions(secure);
    res.clearCookie(FLOW_COOKIE, flowCookie);
    try {
      const outcome = await this.signIn.complete({
        pathAndQuery: req.originalUrl,
        query: req.query as Record<string, unknown>,
        flow: flowOf(req.headers.cookie),
        client: clientOf(req),
        previousToken: sessionTokenOf(req.headers),
      });
      if (!outcome.ok) return res.redirect(302, signInErrorLocation(outcome.error));
      res.cookie(SESSION_COOKIE, outcome.token, newSessionCookieOptions(req, secure));
      res.redirect(302, outcome.returnTo);
    } catch (err) {
      this.logger.error(`Sign-in failed: ${(err as Error)?.name ?? 'error'}`);
      res.redirect(302, signInErrorLocation('server_error'));
    }
  }

  /** Secure cookies over https, as the request says or as PUBLIC_URL does (a proxy that does not say so). */
  private secure(req: Request): boolean {
    return req.secure || (this.config.signIn.publicUrl?.startsWith('https:') ?? false);
  }
}

/** Nothing of a sign-in is cached, nor sent on as a Referer (the callback's URL holds the code). */
function noStore(res: Response): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Referrer-Policy', 'no-referrer');
}
