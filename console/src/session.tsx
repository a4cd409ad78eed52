import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useSyncExternalStore } from 'react';

import { api, ApiError, getActingProject, type ProjectRef, setActingProject, subscribeActingProject, unwrap } from './api/client';

export type Session = Awaited<ReturnType<typeof fetchSession>>;

async function fetchSession() {
  return unwrap(api.GET('/v2/console/session'));
}

/** Who the console is signed in as; null when there is no live session (401). */
export function useSession() {
  return useQuery({
    queryKey: ['session'],
    queryFn: async () => {
      try {
        return await fetchSession();
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) return null;
        throw err;
      }
    },
    staleTime: Infinity,
  });
}

/**
 * The project the screens work in: a project session's own, the one an admin session picked, or
 * the one a signed-in person picked among those they hold a role in (any, for an instance admin).
 */
export function useProject(): ProjectRef | null {
  const session = useSession().data;
  const acting = useSyncExternalStore(subscribeActingProject, getActingProject);
  if (session?.kind === 'project') return { workspace: session.workspace!, project: session.project! };
  if (session?.kind === 'user' && acting && !session.instanceAdmin) {
    const held = session.projects?.some((p) => p.workspace === acting.workspace && p.project === acting.project);
    return held ? acting : null;
  }
  return session?.kind === 'admin' || session?.kind === 'user' ? acting : null;
}

/**
 * Switches an admin or a person's session to another project: every cached answer was the previous
 * project's; a person's session is read again, for their role there (and the scopes it gives).
 */
export function useSwitchProject() {
  const client = useQueryClient();
  return (next: ProjectRef | null) => {
    setActingProject(next);
    client.removeQueries({
      predicate: (query) => query.queryKey[0] !== 'session' && query.queryKey[0] !== 'workspaces' && query.queryKey[0] !== 'projects',
    });
    if (client.getQueryData<Session>(['session'])?.kind === 'user') void client.invalidateQueries({ queryKey: ['session'] });
  };
}

/** How one may sign in here (single sign-on, a key): for the sign-in screen. */
export function useSignInOptions() {
  return useQuery({ queryKey: ['sign-in-options'], queryFn: () => unwrap(api.GET('/v2/console/sign-in-options')), staleTime: Infinity });
}

export function useSignIn() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (key: string) => unwrap(api.POST('/v2/console/session', { body: { key } })),
    onSuccess: (session) => {
      setActingProject(null);
      client.clear();
      client.setQueryData(['session'], session);
    },
  });
}

export function useSignOut() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(api.DELETE('/v2/console/session')),
    onSettled: () => {
      setActingProject(null);
      client.clear();
      client.setQueryData(['session'], null);
    },
  });
}

export type Scope = NonNullable<Session>['scopes'] extends (infer S)[] | null ? S : never;

/** Whether the session's key holds `scope` (null scopes: every scope), so a screen offers only what the key may do. */
export function useCan(scope: Scope): boolean {
  const scopes = useSession().data?.scopes;
  return scopes === null || (scopes?.includes(scope) ?? false);
}
