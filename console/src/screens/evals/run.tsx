import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { Link, useParams } from 'react-router';

import { api, unwrap } from '../../api/client';
import { DataTable } from '../../components/table';
import { Badge, ConfirmButton, ErrorNote, formatTime, Loading, LoadMore } from '../../components/ui';
import { ItemInput, ItemResult, percent, score, StatusBadge, targetLabel, usd } from './format';
import { evalKeys, isActive, type Run, useItemInputs, useRun } from './queries';

/**
 * An experiment run: its progress while it runs (polled every second until it ends, with Cancel),
 * each grader's mean score and pass rate, tokens, cost and mean latency, and its items (answer,
 * each grader's score and reason, the call's log).
 */
export function RunScreen() {
  const id = useParams().id!;
  const run = useRun(id);
  const client = useQueryClient();
  const active = isActive(run.data);
  const items = useInfiniteQuery({
    queryKey: [...evalKeys.run(id), 'items'],
    initialPageParam: '',
    queryFn: ({ pageParam }) =>
      unwrap(
        api.GET('/v2/evals/runs/{id}/items', {
          params: { path: { id }, query: { limit: 50, ...(pageParam ? { after: pageParam } : {}) } },
        }),
      ),
    getNextPageParam: (last) => (last.has_more && last.last_id ? last.last_id : undefined),
    refetchInterval: active ? 1000 : false,
  });
  // The items are read once more when the run ends: the last ones were stored with the final totals.
  const wasActive = useRef(active);
  useEffect(() => {
    if (wasActive.current && !active) {
      void client.invalidateQueries({ queryKey: [...evalKeys.run(id), 'items'] });
      void client.invalidateQueries({ queryKey: [...evalKeys.runs, 'list'] });
    }
    wasActive.current = active;
  }, [active, client, id]);
  const inputs = useItemInputs(run.data?.dataset.name, run.data?.dataset.version);
  const cancel = useMutation({
    mutationFn: () => unwrap(api.POST('/v2/evals/runs/{id}/cancel', { params: { path: { id } } })),
    onSuccess: (next) => client.setQueryData(evalKeys.run(id), next),
  });

  if (run.isPending) return <Loading />;
  if (run.error) return <ErrorNote error={run.error} />;
  const r = run.data;
  const rows = items.data?.pages.flatMap((page) => page.data) ?? [];
  const prompt = (r.target as { prompt?: string | null }).prompt;
  return (
    <>
      <h1>
        {r.name} <StatusBadge status={r.status} />
      </h1>
      <p className="muted">
        {targetLabel(r.target)} on{' '}
        <Link to={`/datasets/${encodeURIComponent(r.dataset.name ?? '')}?version=${r.dataset.version}`}>
          {r.dataset.name} v{r.dataset.version}
        </Link>{' '}
        · started {formatTime(r.startedAt ?? r.createdAt)}
        {r.finishedAt ? ` · finished ${formatTime(r.finishedAt)}` : ''} · {r.concurrency} at once
      </p>
      <p className="row">
        {prompt ? <Link to={`/prompts/${encodeURIComponent(prompt)}`}>Back to {prompt}</Link> : null}
        <Link to={`/evals/runs${prompt ? `?prompt=${encodeURIComponent(prompt)}` : ''}`}>
          {prompt ? `Runs of ${prompt}: compare two` : 'All runs: compare two'}
        </Link>
      </p>
      <Progress run={r} />
      {active ? (
        <ConfirmButton
          label="Cancel the run"
          title="Cancel this run?"
          confirmLabel="Cancel the run"
          danger
          onConfirm={() => cancel.mutate()}
        >
          <p>Its calls in flight are stopped; the items stored so far stay, and the run is marked cancelled.</p>
        </ConfirmButton>
      ) : null}
      <ErrorNote error={cancel.error} />
      {r.error ? <ErrorNote error={`The run stopped: ${r.error}`} /> : null}

      <h2>Graders</h2>
      <DataTable label="Scores per grader" columns={['Grader', 'Type', 'Passes at', 'Graded', 'Mean score', 'Pass rate']}>
        {r.graders.map((g) => (
          <tr key={g.name}>
            <td>{g.name}</td>
            <td>{g.type}</td>
            <td>{score(g.threshold)}</td>
            <td>{g.graded}</td>
            <td>{score(g.meanScore)}</td>
            <td>{`${percent(g.passRate)} (${g.passed} of ${g.graded})`}</td>
          </tr>
        ))}
      </DataTable>

      <h2>Usage</h2>
      <dl className="facts">
        <dt>Tokens</dt>
        <dd>
          {r.usage.promptTokens} in, {r.usage.completionTokens} out, {r.usage.promptTokens + r.usage.completionTokens} total
        </dd>
        <dt>Cost</dt>
        <dd>{usd(r.usage.costUsd)} (the items&apos; calls; a model grader&apos;s calls are logged on their own)</dd>
        <dt>Mean latency</dt>
        <dd>{r.usage.meanLatencyMs === null ? '—' : `${r.usage.meanLatencyMs} ms`}</dd>
        <dt>Logged as</dt>
        <dd>
          <Link to={`/logs?environment=${encodeURIComponent(r.logEnvironment)}`}>environment {r.logEnvironment}</Link>
        </dd>
      </dl>

      <h2>Items</h2>
      <ErrorNote error={items.error} />
      {items.isPending ? (
        <Loading />
      ) : rows.length === 0 ? (
        <p className="muted">{active ? 'No item is stored yet: they appear here as the run goes.' : 'The run stored no item.'}</p>
      ) : (
        <DataTable label="Items of the run" columns={['Input', 'Result', 'Answer, scores and log']}>
          {rows.map((item) => (
            <tr key={item.itemId}>
              <td className="narrow">
                <ItemInput item={inputs.data?.get(item.itemId)} />
              </td>
              <td>
                <Badge tone={item.passed ? 'ok' : 'danger'}>{item.passed ? 'passed' : 'failed'}</Badge>
                <div className="small muted">score {score(item.score)}</div>
              </td>
              <td>
                <ItemResult item={item} />
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <LoadMore pages={items} />
    </>
  );
}

/** Items stored of the total, as a progress bar and in words (a screen reader hears it change). */
function Progress({ run }: { run: Run }) {
  const { total, completed, errored, passed } = run.progress;
  return (
    <div className="progress-row">
      <progress max={Math.max(total, 1)} value={completed} aria-label="Items done" />
      <span aria-live="polite">
        {completed} of {total} items done{errored ? `, ${errored} failed to call` : ''} · {passed} passed every grader
        {isActive(run) ? ' · following the run…' : ''}
      </span>
    </div>
  );
}
