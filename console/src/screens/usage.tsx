import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useSearchParams } from 'react-router';

import { api, type Schemas, unwrap } from '../api/client';
import { Picker } from '../components/fields';
import { DataTable } from '../components/table';
import { EmptyState, ErrorNote, formatTime, Loading, Stats } from '../components/ui';
import { UsageChart } from '../components/usage-chart';
import { useProject, useSession } from '../session';

const RANGES = { '24h': 1, '7d': 7, '30d': 30 } as const;
type Row = Schemas['UsageRowDto'];

/**
 * What each "Split by" asks the API to group by (`group_by`), and so what each row carries: a
 * split by model asks for the provider too, so a model name served by two providers stays two series.
 */
type Split = 'none' | 'prompt' | 'model' | 'key';
const SPLITS: Record<Split, readonly ('prompt' | 'provider' | 'model' | 'key')[]> = {
  none: [],
  prompt: ['prompt'],
  model: ['provider', 'model'],
  key: ['key'],
};
const GROUPS = Object.keys(SPLITS) as Split[];

/** A row's series: the values the API returned for the dimensions asked, joined by "/". */
function groupOf(row: Row, group: Split): string {
  const dimensions = SPLITS[group];
  if (dimensions.length === 0) return 'all calls';
  return dimensions
    .map((dimension) => {
      if (dimension === 'key') return row.keyId ? `key ${row.keyId.slice(0, 8)}…` : '—';
      return row[dimension] ?? '—';
    })
    .join('/');
}

/**
 * Calls, errors, latency percentiles, tokens and cost over time, split by prompt, model or key,
 * from the hourly usage rollups (`GET /v2/usage`), never the logs table. Range, bucket and split in the URL.
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

  const chart = useMemo(() => {
    const rows = usage.data?.data ?? [];
    // Every bucket of the range, so quiet hours or days show as zero instead of being skipped.
    const step = bucket === 'hour' ? 3600 : 86_400;
    const buckets: number[] = [];
    if (usage.data) {
      for (let t = Math.floor(Date.parse(usage.data.from) / 1000 / step) * step; t < Date.parse(usage.data.to) / 1000; t += step)
        buckets.push(t);
    }
    const labels = [...new Set(rows.map((r) => groupOf(r, group)))].slice(0, 8);
    const series = labels.map((label) => ({
      label,
      values: buckets.map((b) =>
        rows.filter((r) => Date.parse(r.start) / 1000 === b && groupOf(r, group) === label).reduce((n, r) => n + r.calls, 0),
      ),
    }));
    return { buckets, series };
  }, [usage.data, group, bucket]);

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
              { label: 'Errors', value: totals.errors, tone: totals.errors > 0 ? 'danger' : undefined },
              { label: 'Latency p50 / p95', value: `${totals.latencyMs.p50 ?? '—'} ms / ${totals.latencyMs.p95 ?? '—'} ms` },
              { label: 'Tokens', value: totals.tokens.total },
              { label: 'Cost', value: `$${totals.costUsd}` },
            ]}
          />
          {totals.unpricedCalls > 0 ? (
            <p className="muted small">The cost leaves out {totals.unpricedCalls} calls of models without a known price.</p>
          ) : null}
          <UsageChart title={`Calls per ${bucket}`} buckets={chart.buckets} series={chart.series} />
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
                <td>{formatTime(row.start)}</td>
                {group !== 'none' ? <td>{groupOf(row, group)}</td> : null}
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
