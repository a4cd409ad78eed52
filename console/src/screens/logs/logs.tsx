import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Form } from 'react-aria-components';
import { Link, useSearchParams } from 'react-router';

import { api, type Schemas, unwrap } from '../../api/client';
import { Button } from '../../components/button';
import { Picker, TextInput } from '../../components/fields';
import { DataTable } from '../../components/table';
import { EmptyState, ErrorNote, formatTime, Loading } from '../../components/ui';
import { usePrompts } from '../prompts/prompts';

/** The list's filters, all kept in the URL (a link to a filtered page opens it). */
export const LOG_FILTERS = [
  'q',
  'slug',
  'version',
  'environment',
  'status',
  'model',
  'provider',
  'keyId',
  'threadId',
  'traceId',
  'metadata',
  'from',
  'to',
] as const;
type Filters = Partial<Record<(typeof LOG_FILTERS)[number], string>>;

/**
 * Request logs, newest first, keyset-paged (`after`); one API request per page (plus the prompt names, cached).
 * `q` searches the logs' text (the input, the reply and the error) with the other filters. Each row
 * previews what was said, beside its latency, tokens and cost.
 */
export function LogsScreen() {
  const [params, setParams] = useSearchParams();
  const filters: Filters = Object.fromEntries(LOG_FILTERS.flatMap((name) => (params.get(name) ? [[name, params.get(name)!]] : [])));
  // A version is a prompt's: the API needs the slug with it (the form says so before sending).
  if (!filters.slug) delete filters.version;
  const after = params.get('after') ?? undefined;
  const logs = useQuery({
    queryKey: ['logs', filters, after],
    queryFn: () => unwrap(api.GET('/v2/logs', { params: { query: { ...filters, limit: 50, ...(after ? { after } : {}) } } })),
    placeholderData: keepPreviousData,
  });
  const apply = (next: Filters) => setParams(Object.fromEntries(Object.entries(next).filter(([, v]) => v)) as Record<string, string>);
  const filtered = Object.keys(filters).length > 0;

  return (
    <>
      <h1>Logs</h1>
      <LogFilters key={params.toString()} initial={filters} onApply={apply} />
      <ErrorNote error={logs.error} />
      {logs.isPending ? (
        <Loading />
      ) : logs.data && logs.data.data.length > 0 ? (
        <>
          <DataTable
            label="Request logs, newest first"
            columns={['Started', 'Prompt', 'Environment', 'Version', 'Input and output', 'Model', 'Status', 'Latency', 'Tokens', 'Cost']}
          >
            {logs.data.data.map((log) => (
              <tr key={log.id}>
                <td>
                  <Link to={`/logs/${log.id}`}>{formatTime(log.startedAt)}</Link>
                </td>
                <td>{log.promptSlug}</td>
                <td>{log.environment || '—'}</td>
                <td>{log.version ? `v${log.version}` : '—'}</td>
                <td className="said">
                  <Said log={log} />
                </td>
                <td>
                  {log.provider}/{log.model}
                </td>
                <td className={log.status >= 400 ? 'error-text' : undefined}>{log.status}</td>
                <td>{log.latencyMs} ms</td>
                <td>{log.usage.total_tokens ?? '—'}</td>
                <td>{log.costUsd !== null ? `$${log.costUsd}` : '—'}</td>
              </tr>
            ))}
          </DataTable>
          <nav className="row" aria-label="Pages">
            {after ? <Link to={`?${new URLSearchParams(filters as Record<string, string>).toString()}`}>Newest</Link> : null}
            {logs.data.has_more && logs.data.last_id ? (
              <Link to={`?${new URLSearchParams({ ...(filters as Record<string, string>), after: logs.data.last_id }).toString()}`}>
                Older
              </Link>
            ) : null}
          </nav>
        </>
      ) : (
        <EmptyState title={filtered ? 'No logs match these filters' : 'No logs yet'}>
          <p>
            {filtered
              ? 'Clear a filter, or widen the time range.'
              : 'Every call to a prompt or assistant is logged here: run one in the playground, or call a deployment (see "Use it" on a prompt).'}
          </p>
        </EmptyState>
      )}
    </>
  );
}

/**
 * A few words of what was said (the API's `preview`, cut at 160 characters): the last user message
 * and the reply, or the error of a failed call; nothing of a doNotRecord call, which stores none.
 * Rendered as text, never as markup.
 */
function Said({ log }: { log: Schemas['RequestLogListItemDto'] }) {
  if (log.doNotRecord) return <span className="muted">not recorded (doNotRecord)</span>;
  const failed = log.status >= 400 && !log.preview.output;
  const output = failed ? cut(log.error ?? `status ${log.status}`) : log.preview.output;
  return (
    <>
      <span className="said-line">
        <span className="said-label">Input</span> {log.preview.input ?? <span className="muted">—</span>}
      </span>
      <span className={failed ? 'said-line error-text' : 'said-line'}>
        <span className="said-label">{failed ? 'Error' : 'Output'}</span> {output ?? <span className="muted">—</span>}
      </span>
    </>
  );
}

/** An error message as long as a preview. */
const cut = (text: string) => (text.length > 160 ? `${text.slice(0, 159).trimEnd()}…` : text);

function LogFilters({ initial, onApply }: { initial: Filters; onApply: (filters: Filters) => void }) {
  const [filters, setFilters] = useState<Filters>(initial);
  const prompts = usePrompts();
  const set = (name: keyof Filters) => (value: string) => setFilters({ ...filters, [name]: value });
  const versionWithoutPrompt = Boolean(filters.version) && !filters.slug;
  return (
    <Form
      className="filters"
      aria-label="Filters"
      onSubmit={(event) => {
        event.preventDefault();
        if (!versionWithoutPrompt) onApply(filters);
      }}
    >
      <TextInput label="Search" value={filters.q ?? ''} onChange={set('q')} type="search" placeholder='words, "a phrase", -word' />
      <Picker
        label="Prompt"
        items={[{ id: 'any', label: 'any' }, ...(prompts.data?.data ?? []).map((p) => p.slug)]}
        value={filters.slug || 'any'}
        onChange={(key) => set('slug')(key === 'any' ? '' : key)}
      />
      {(
        [
          ['version', 'Version', '2'],
          ['environment', 'Environment', 'production'],
          ['status', 'Status', 'success, error or 502'],
          ['model', 'Model', 'gpt-4o-mini'],
          ['provider', 'Provider', 'openai'],
          ['keyId', 'Key id', ''],
          ['metadata', 'Metadata', 'customer:c_42'],
          ['threadId', 'Thread id', ''],
          ['traceId', 'Trace id', ''],
          ['from', 'From', '2026-01-01T00:00:00Z'],
          ['to', 'To', ''],
        ] as const
      ).map(([name, label, placeholder]) => (
        <TextInput key={name} label={label} value={filters[name] ?? ''} onChange={set(name)} placeholder={placeholder} />
      ))}
      <Button type="submit">Filter</Button>
      {versionWithoutPrompt ? (
        <p className="error-text" role="alert">
          Pick a prompt to filter by its version.
        </p>
      ) : null}
    </Form>
  );
}
