// The schema alone (not the client): test/console-usage-figures.spec.ts runs these functions without a browser.
import type { components } from '../api/schema';

type Schemas = components['schemas'];

export type Row = Schemas['UsageRowDto'];
export type Report = Schemas['UsageReportDto'];

/**
 * What each "Split by" asks the API to group by (`group_by`), and so what each row carries: a
 * split by model asks for the provider too, so a model name served by two providers stays two series.
 */
export type Split = 'none' | 'prompt' | 'model' | 'key';
export const SPLITS: Record<Split, readonly ('prompt' | 'provider' | 'model' | 'key')[]> = {
  none: [],
  prompt: ['prompt'],
  model: ['provider', 'model'],
  key: ['key'],
};
export const GROUPS = Object.keys(SPLITS) as Split[];
/** The chart draws this many series; the other groups are summed as one ("other …"), the table lists them all. */
const MAX_SERIES = 7;

/** A row's group: the values the API returned for the dimensions asked, joined by "/"; a key by its name when known. */
export function groupOf(row: Row, group: Split, keyNames: ReadonlyMap<string, string> = new Map()): string {
  const dimensions = SPLITS[group];
  if (dimensions.length === 0) return 'all calls';
  return dimensions
    .map((dimension) => {
      if (dimension === 'key') return row.keyId ? (keyNames.get(row.keyId) ?? `key ${row.keyId.slice(0, 8)}…`) : 'no project key';
      return row[dimension] ?? '—';
    })
    .join('/');
}

/** Exact sum of USD decimal strings ("0.00275" + "1.2"), as the API sums them: no binary rounding. */
export function addDecimals(values: readonly string[]): string {
  const scale = Math.max(0, ...values.map((v) => (v.split('.')[1] ?? '').length));
  const total = values.reduce((sum, v) => {
    const negative = v.startsWith('-');
    const [whole, fraction = ''] = v.replace('-', '').split('.');
    const units = BigInt(whole || '0') * 10n ** BigInt(scale) + BigInt((fraction + '0'.repeat(scale)).slice(0, scale) || '0');
    return sum + (negative ? -units : units);
  }, 0n);
  const negative = total < 0n;
  const digits = (negative ? -total : total).toString().padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`.replace(/\.?0+$/, '');
  return `${negative ? '-' : ''}${text || '0'}`;
}

/** One group's figures over the whole range: what "Cost by …" lists. */
export interface GroupTotal {
  label: string;
  calls: number;
  errors: number;
  costUsd: string;
}

export interface Figures {
  /** Every bucket of the range (Unix seconds), quiet ones included, so they show as zero instead of being skipped. */
  buckets: number[];
  calls: { label: string; values: number[] }[];
  cost: { label: string; values: number[] }[];
  /** Each group's totals, most expensive first (then most calls). */
  groups: GroupTotal[];
}

/** The report's rows as the charts and the per-group cards show them. */
export function figuresOf(report: Report | undefined, group: Split, keyNames: ReadonlyMap<string, string>): Figures {
  const rows = report?.data ?? [];
  const bucket = report?.bucket ?? 'day';
  const step = bucket === 'hour' ? 3600 : 86_400;
  const buckets: number[] = [];
  if (report) {
    for (let t = Math.floor(Date.parse(report.from) / 1000 / step) * step; t < Date.parse(report.to) / 1000; t += step) buckets.push(t);
  }
  const byGroup = new Map<string, Row[]>();
  for (const row of rows) {
    const label = groupOf(row, group, keyNames);
    byGroup.set(label, [...(byGroup.get(label) ?? []), row]);
  }
  const groups: GroupTotal[] = [...byGroup.entries()].map(([label, own]) => ({
    label,
    calls: own.reduce((n, r) => n + r.calls, 0),
    errors: own.reduce((n, r) => n + r.errors, 0),
    costUsd: addDecimals(own.map((r) => r.costUsd)),
  }));
  groups.sort((a, b) => Number(b.costUsd) - Number(a.costUsd) || b.calls - a.calls || a.label.localeCompare(b.label));
  // The series: the groups with the most calls, the rest as one.
  const ranked = [...groups].sort((a, b) => b.calls - a.calls || a.label.localeCompare(b.label)).map((g) => g.label);
  const shown = ranked.length > MAX_SERIES + 1 ? ranked.slice(0, MAX_SERIES) : ranked;
  const rest = new Set(ranked.slice(shown.length));
  const series = [...shown.map((label) => ({ label, has: (l: string) => l === label }))];
  if (rest.size > 0) series.push({ label: `${rest.size} other ${SPLITS[group].join('/')}s`, has: (l: string) => rest.has(l) });
  const valuesOf = (pick: (row: Row) => number) =>
    series.map((s) => ({
      label: s.label,
      values: buckets.map((b) =>
        rows.filter((r) => Date.parse(r.start) / 1000 === b && s.has(groupOf(r, group, keyNames))).reduce((n, r) => n + pick(r), 0),
      ),
    }));
  return { buckets, calls: valuesOf((r) => r.calls), cost: valuesOf((r) => Number(r.costUsd)), groups };
}

/** Errors as a share of calls, `2.5 %`; `—` without calls. */
export const errorRate = (errors: number, calls: number): string => (calls > 0 ? `${((errors / calls) * 100).toFixed(1)} %` : '—');
