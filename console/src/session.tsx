import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, unwrap } from './api/client';

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

export function useSignIn() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (key: string) => unwrap(api.POST('/v2/console/session', { body: { key } })),
    onSuccess: (session) => {
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
      client.clear();
      client.setQueryData(['session'], null);
    },
  });
}
