import { useQuery } from '@tanstack/react-query';

import { api, unwrap } from '../../api/client';

export const promptKey = (slug: string) => ['prompt', slug] as const;

export function usePrompt(slug: string) {
  return useQuery({
    queryKey: [...promptKey(slug), 'info'],
    queryFn: () => unwrap(api.GET('/v2/prompts/{slug}', { params: { path: { slug } } })),
  });
}

export function useVersions(slug: string) {
  return useQuery({
    queryKey: [...promptKey(slug), 'versions'],
    queryFn: () => unwrap(api.GET('/v2/prompts/{slug}/versions', { params: { path: { slug }, query: { limit: 100 } } })),
  });
}

export function useDeploymentHistory(slug: string) {
  return useQuery({
    queryKey: [...promptKey(slug), 'history'],
    queryFn: () => unwrap(api.GET('/v2/prompts/{slug}/deployments', { params: { path: { slug }, query: {} } })),
  });
}

export function useEnvironments() {
  return useQuery({ queryKey: ['environments'], queryFn: () => unwrap(api.GET('/v2/environments')), staleTime: 60_000 });
}
