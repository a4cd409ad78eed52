import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';

import { Principal, ProjectPrincipal, RequestWithPrincipal } from './principal';
import type { UserAccess } from './roles';
import { Scope } from './scopes';

export type Access = 'public' | 'admin' | 'instance-admin' | 'project' | 'admin-or-project' | 'signed-in';
export const ACCESS_KEY = 'parley:access';
export const SCOPES_KEY = 'parley:scopes';

/** No key needed (health, docs). */
export const Public = () => SetMetadata(ACCESS_KEY, 'public' satisfies Access);
/** Needs the admin key (workspaces, projects, API keys). Routes without a decorator need a project key. */
export const AdminOnly = () => SetMetadata(ACCESS_KEY, 'admin' satisfies Access);
/** Needs the instance's admin key: not a workspace admin key (limits, which protect the whole instance). */
export const InstanceAdminOnly = () => SetMetadata(ACCESS_KEY, 'instance-admin' satisfies Access);
/** Either key (apply, export): the handler decides what a project key may reach (its own project only). */
export const AdminOrProject = () => SetMetadata(ACCESS_KEY, 'admin-or-project' satisfies Access);
/**
 * Any key (as @AdminOrProject) or any signed-in person, with or without a project chosen: the
 * routes about the caller itself (who am I, sign out). Read the caller with @CurrentCaller().
 */
export const SignedIn = () => SetMetadata(ACCESS_KEY, 'signed-in' satisfies Access);

/**
 * The scope a key needs for this route (any one of those named). Every route that is not @Public()
 * declares one (or @AnyScope()), on the handler or its controller: the app refuses to start otherwise
 * (ScopeCoverage).
 * Shown in the OpenAPI document as `x-parley-scopes`.
 */
export const RequireScope = (...anyOf: [Scope, ...Scope[]]) =>
  applyDecorators(SetMetadata(SCOPES_KEY, anyOf), ApiExtension('x-parley-scopes', anyOf));

/** Any authenticated key, whatever its scopes: routes about the caller itself (who am I, sign out). */
export const ANY_SCOPE = 'any';
export const AnyScope = () => applyDecorators(SetMetadata(SCOPES_KEY, ANY_SCOPE), ApiExtension('x-parley-scopes', [ANY_SCOPE]));

/** The calling key, admin or project, on routes marked @AdminOrProject(). */
export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal => {
  const principal = ctx.switchToHttp().getRequest<RequestWithPrincipal>().principal;
  if (!principal) throw new Error('CurrentPrincipal used on a public route');
  return principal;
});

/** The calling key's project; every project-owned query is scoped to it. */
export const CurrentProject = createParamDecorator((_: unknown, ctx: ExecutionContext): ProjectPrincipal => {
  const principal = ctx.switchToHttp().getRequest<RequestWithPrincipal>().principal;
  if (principal?.kind !== 'project') throw new Error('CurrentProject used on a route without project access');
  return principal;
});

/** Who calls a @SignedIn() route: a key's principal, or a person (with their principal in the project X-Parley-Project names, if any). */
export interface Caller {
  /** A key's principal; a person's in the project they chose (X-Parley-Project) when they hold a role there, else null. */
  principal: Principal | null;
  /** The signed-in person; null for a key. */
  person: UserAccess | null;
}

export const CurrentCaller = createParamDecorator((_: unknown, ctx: ExecutionContext): Caller => {
  const request = ctx.switchToHttp().getRequest<RequestWithPrincipal>();
  if (!request.principal && !request.person) throw new Error('CurrentCaller used on a public route');
  return { principal: request.principal ?? null, person: request.person ?? null };
});
