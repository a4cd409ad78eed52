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

/** The project the screens work in: a project session's own, or the one an admin session picked. */
export function useProject(): ProjectRef | null {
  const session = useSession().data;
  const acting = useSyncExternalStore(subscribeActingProject, getActingProject);
  if (session?.kind === 'project') return { workspace: session.workspace!, project: session.project! };
  return session?.kind === 'admin' ? acting : null;
}

/** Switches an admin session to another project: every cached answer was the previous project's. */
export function useSwitchProject() {
  const client = useQueryClient();
  return (next: ProjectRef | null) => {
    setActingProject(next);
    client.removeQueries({
      predicate: (query) => query.queryKey[0] !== 'session' && query.queryKey[0] !== 'workspaces' && query.queryKey[0] !== 'projects',
    });
  };
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
