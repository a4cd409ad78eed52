import { useInfiniteQuery, useQuery } from '@tanstack/react-query';

import { api, type Schemas, unwrap } from '../../api/client';

export type Dataset = Schemas['DatasetDto'];
export type DatasetItem = Schemas['DatasetItemDto'];
export type DatasetChange = Schemas['DatasetChangeDto'];
export type Grader = Schemas['GraderDto'];
export type Run = Schemas['RunDto'];
export type RunItem = Schemas['RunItemDto'];
export type Comparison = Schemas['CompareDto'];
export type Outcome = 'regressed' | 'improved' | 'unchanged';

/** Cache keys: every evaluation answer lives under one of these, so a change invalidates exactly its lists. */
export const evalKeys = {
  datasets: ['datasets'] as const,
  dataset: (name: string) => ['datasets', name] as const,
  graders: ['graders'] as const,
  runs: ['runs'] as const,
  run: (id: string) => ['runs', 'one', id] as const,
};

/** A run still moving: its screen polls it every second until it ends. */
export const isActive = (run: Pick<Run, 'status'> | undefined) => run?.status === 'queued' || run?.status === 'running';

/** Every dataset of the project, by name (keyset pages of 100, "Load more"). */
export function useDatasets() {
  return useInfiniteQuery({
    queryKey: evalKeys.datasets,
    initialPageParam: '',
    queryFn: ({ pageParam }) =>
      unwrap(api.GET('/v2/datasets', { params: { query: { limit: 100, ...(pageParam ? { after: pageParam } : {}) } } })),
    getNextPageParam: (last) => (last.has_more && last.last_id ? last.last_id : undefined),
  });
}

export function useDataset(name: string) {
  return useQuery({
    queryKey: [...evalKeys.dataset(name), 'info'],
    queryFn: () => unwrap(api.GET('/v2/datasets/{name}', { params: { path: { name } } })),
  });
}

export function useDatasetVersions(name: string) {
  return useQuery({
    queryKey: [...evalKeys.dataset(name), 'versions'],
    queryFn: () => unwrap(api.GET('/v2/datasets/{name}/versions', { params: { path: { name } } })),
  });
}

/** A version's items (the current one when `version` is undefined), by id, 50 a page. */
export function useDatasetItems(name: string, version: number | undefined, pageSize = 50) {
  return useInfiniteQuery({
    queryKey: [...evalKeys.dataset(name), 'items', version ?? 'current', pageSize],
    initialPageParam: '',
    queryFn: ({ pageParam }) =>
      unwrap(
        api.GET('/v2/datasets/{name}/items', {
          params: {
            path: { name },
            query: { limit: pageSize, ...(version !== undefined ? { version } : {}), ...(pageParam ? { after: pageParam } : {}) },
          },
        }),
      ),
    getNextPageParam: (last) => (last.has_more && last.last_id ? last.last_id : undefined),
  });
}

export function useGraders() {
  return useQuery({ queryKey: evalKeys.graders, queryFn: () => unwrap(api.GET('/v2/graders')) });
}

/** Runs, newest first: all of them, or one prompt's. */
export function useRuns(prompt?: string) {
  return useInfiniteQuery({
    queryKey: [...evalKeys.runs, 'list', prompt ?? ''],
    initialPageParam: '',
    queryFn: ({ pageParam }) =>
      unwrap(
        api.GET('/v2/evals/runs', {
          params: { query: { limit: 50, ...(prompt ? { prompt } : {}), ...(pageParam ? { after: pageParam } : {}) } },
        }),
      ),
    getNextPageParam: (last) => (last.has_more && last.last_id ? last.last_id : undefined),
    // A list holding a queued or running run follows it, every 2 s, until none is left.
    refetchInterval: (query) => (query.state.data?.pages.some((page) => page.data.some(isActive)) ? 2000 : false),
  });
}

/** One run, polled every second while it is queued or running. */
export function useRun(id: string) {
  return useQuery({
    queryKey: evalKeys.run(id),
    queryFn: () => unwrap(api.GET('/v2/evals/runs/{id}', { params: { path: { id } } })),
    refetchInterval: (query) => (isActive(query.state.data) ? 1000 : false),
    staleTime: 0,
  });
}

/**
 * A dataset version's items by id (the first 100), to show what each item of a run asked; an
 * empty map when the dataset is gone (runs keep their results after it is deleted).
 */
export function useItemInputs(dataset: string | undefined, version: number | undefined) {
  return useQuery({
    queryKey: [...evalKeys.dataset(dataset ?? ''), 'inputs', version],
    enabled: dataset !== undefined && version !== undefined,
    queryFn: async () => {
      const page = await unwrap(
        api.GET('/v2/datasets/{name}/items', { params: { path: { name: dataset! }, query: { limit: 100, version } } }),
      ).catch(() => null);
      return new Map((page?.data ?? []).map((item) => [item.id, item]));
    },
  });
}
