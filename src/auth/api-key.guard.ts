import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { forbidden, invalidApiKey } from '../common/errors';
import { Access, ACCESS_KEY } from './auth.decorators';
import { ApiKeysService } from './api-keys.service';
import { RequestWithPrincipal } from './principal';

/** `X-API-Key: <key>`, or `Authorization: Bearer <key>` as sent by existing SDKs. */
export function extractApiKey(headers: RequestWithPrincipal['headers']): string | null {
  const header = headers['x-api-key'];
  if (typeof header === 'string' && header.trim() !== '') return header.trim();
  const authorization = headers['authorization'];
  if (typeof authorization === 'string') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (match) return match[1];
  }
  return null;
}

/**
 * The one global guard. Every route needs a project key unless marked @Public() or @AdminOnly();
 * a missing or unknown key is the spec's 401 body everywhere.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly keys: ApiKeysService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const access =
      this.reflector.getAllAndOverride<Access | undefined>(ACCESS_KEY, [context.getHandler(), context.getClass()]) ??
      'project';
    if (access === 'public') return true;
    const request = context.switchToHttp().getRequest<RequestWithPrincipal>();
    const secret = extractApiKey(request.headers);
    const principal = secret ? await this.keys.resolve(secret) : null;
    if (!principal) throw invalidApiKey();
    if (access !== 'admin-or-project' && principal.kind !== access) {
      throw forbidden(access === 'admin' ? 'This endpoint needs the admin API key' : 'This endpoint needs a project API key');
    }
    request.principal = principal;
    return true;
  }
}
