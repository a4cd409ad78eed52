import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useSearchParams } from 'react-router';

import { api, unwrap } from '../api/client';
import { Picker } from '../components/fields';
import { DataTable } from '../components/table';
import { EmptyState, ErrorNote, formatTime, Loading, Stats } from '../components/ui';
import { UsageChart } from '../components/usage-chart';
import { useCan, useProject, useSession } from '../session';
import { errorRate, figuresOf, groupOf, GROUPS, type Split, SPLITS } from './usage-figures';

const RANGES = { '24h': 1, '7d': 7, '30d': 30 } as const;
const ms = (value: number | null) => (value === null ? '—' : `${value} ms`);

/**
 * Calls, errors, latency percentiles, tokens and cost over time, split by prompt, model or key,
 * from the hourly usage rollups (`GET /v2/usage`), never the logs table: the range's totals as
 * cards, calls and cost per bucket as stacked bars, each group's cost (spend per key with
 * `group=key`), and every row in a table. Range, bucket and split in the URL.
 */
export default function UsageScreen() {
  const [params, setParams] = useSearchParams();
  const range = (params.get('range') ?? '7d') as keyof typeof RANGES;
  const bucket = (params.get('bucket') ?? (range === '24h' ? 'hour' : 'day')) as 'hour' | 'day';
  const asked = params.get('group') ?? 'prompt';
  const group: Split = (GROUPS as string[]).includes(asked) ? (asked as Split) : 'prompt';
  const set = (name: string, value: string) => setParams((prev) => ({ ...Object.fromEntries(prev), [name]: value }));
  // The range ends at the next full hour, so the query (and its cache key) stays the same for an hour.
  const to = useMemo(() => new Date(Math.ceil(Date.now() / 3_600_000) * 3_600_000), []);
  const from = new Date(to.getTime() - (RANGES[range] ?? 7) * 86_400_000);
  // The usage API takes the admin key as itself (every project), so an admin session names its project.
  const admin = useSession().data?.kind === 'admin';
  const scope = useProject();
  const only = admin && scope ? { workspace: scope.workspace, project: scope.project } : {};
  const usage = useQuery({
    queryKey: ['usage', range, bucket, group],
    queryFn: () =>
      unwrap(
        api.GET('/v2/usage', {
          params: {
            query: {
              from: from.toISOString(),
              to: to.toISOString(),
              bucket,
              ...(group !== 'none' ? { group_by: SPLITS[group].join(',') } : {}),
              ...only,
            },
          },
        }),
      ),
  });

  // Keys by name where the session may list them (keys:manage); by their id's start otherwise.
  const canListKeys = useCan('keys:manage') && !!scope;
  const keys = useQuery({
    queryKey: ['keys', scope?.workspace, scope?.project],
    queryFn: () => unwrap(api.GET('/v2/workspaces/{workspace}/projects/{project}/api-keys', { params: { path: scope! } })),
    enabled: group === 'key' && canListKeys,
    retry: false,
  });
  const keyNames = useMemo(() => new Map((keys.data?.data ?? []).map((key) => [key.id, `key ${key.name}`])), [keys.data]);
  const figures = useMemo(() => figuresOf(usage.data, group, keyNames), [usage.data, group, keyNames]);

  const report = usage.data;
  const totals = report?.totals;
  return (
    <>
      <h1>Usage</h1>
      <div className="row">
        <Picker label="Range" items={Object.keys(RANGES)} value={range} onChange={(v) => set('range', v)} />
        <Picker label="Bucket" items={['hour', 'day']} value={bucket} onChange={(v) => set('bucket', v)} />
        <Picker label="Split by" items={GROUPS} value={group} onChange={(v) => set('group', v)} />
      </div>
      <ErrorNote error={usage.error} />
      {usage.isPending ? (
        <Loading />
      ) : report && totals && totals.calls > 0 ? (
        <>
          <Stats
            label="Totals"
            items={[
              { label: 'Calls', value: totals.calls },
              { label: 'Errors', value: totals.errors },
              { label: 'Error rate', value: errorRate(totals.errors, totals.calls) },
              { label: 'Latency p50', value: ms(totals.latencyMs.p50) },
              { label: 'Latency p95', value: ms(totals.latencyMs.p95) },
              { label: 'Tokens', value: totals.tokens.total },
              { label: 'Cost', value: `$${totals.costUsd}` },
            ]}
          />
          {totals.unpricedCalls > 0 ? (
            <p className="muted">The cost leaves out {totals.unpricedCalls} calls of models without a known price (listed below).</p>
          ) : null}
          <UsageChart title={`Calls per ${bucket}`} bucket={bucket} buckets={figures.buckets} series={figures.calls} unit="calls" />
          <UsageChart title={`Cost per ${bucket} (USD)`} bucket={bucket} buckets={figures.buckets} series={figures.cost} unit="USD" />
          {group !== 'none' ? (
            <section aria-labelledby="cost-by">
              <h2 id="cost-by">Cost by {SPLITS[group].join('/')}</h2>
              <dl className="stats" aria-labelledby="cost-by">
                {figures.groups.map((g) => (
                  <div key={g.label} className="stat">
                    <dt>{g.label}</dt>
                    <dd>${g.costUsd}</dd>
                    <dd className="small muted">
                      {g.calls} calls, {errorRate(g.errors, g.calls)} errors
                    </dd>
                  </div>
                ))}
              </dl>
            </section>
          ) : null}
          <DataTable
            label={`Usage per ${bucket}`}
            columns={[
              bucket === 'hour' ? 'Hour' : 'Day',
              group !== 'none' && SPLITS[group].join('/'),
              'Calls',
              'Errors',
              'p50 ms',
              'p95 ms',
              'Tokens',
              'Cost USD',
            ]}
          >
            {report.data.map((row, i) => (
              <tr key={i}>
                <td className="nowrap">{bucket === 'day' ? row.start.slice(0, 10) : formatTime(row.start)}</td>
                {group !== 'none' ? <td>{groupOf(row, group, keyNames)}</td> : null}
                <td>{row.calls}</td>
                <td>{row.errors}</td>
                <td>{row.latencyMs.p50 ?? '—'}</td>
                <td>{row.latencyMs.p95 ?? '—'}</td>
                <td>{row.tokens.total}</td>
                <td>{row.costUsd}</td>
              </tr>
            ))}
          </DataTable>
          {report.unpriced.length > 0 ? (
            <p className="muted">No known price: {report.unpriced.map((u) => `${u.provider}/${u.model} (${u.calls} calls)`).join(', ')}.</p>
          ) : null}
        </>
      ) : (
        <EmptyState title="No calls in this range">
          <p>Usage counts every call to a prompt or assistant, by the hour. Call one (see "Use it" on a prompt), or pick a longer range.</p>
        </EmptyState>
      )}
    </>
  );
}
