import { useInfiniteQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';

import { api, unwrap } from '../../api/client';
import { DataTable } from '../../components/table';
import { Badge, ErrorNote, Loading, LoadMore, Notice, Stats } from '../../components/ui';
import { ItemInput, ItemResult, percent, score, targetLabel } from './format';
import { type Comparison, type DatasetItem, evalKeys, type Outcome, type Run, useItemInputs, useRun } from './queries';

const OUTCOMES: { outcome: Outcome; title: string }[] = [
  { outcome: 'regressed', title: 'Regressed' },
  { outcome: 'improved', title: 'Improved' },
  { outcome: 'unchanged', title: 'Unchanged' },
];

function useComparison(id: string, baseId: string, outcome: Outcome) {
  return useInfiniteQuery({
    queryKey: [...evalKeys.run(id), 'compare', baseId, outcome],
    initialPageParam: '',
    queryFn: ({ pageParam }) =>
      unwrap(
        api.GET('/v2/evals/runs/{id}/compare/{baseId}', {
          params: { path: { id, baseId }, query: { outcome, limit: 50, ...(pageParam ? { after: pageParam } : {}) } },
        }),
      ),
    getNextPageParam: (last) => (last.has_more && last.last_id ? last.last_id : undefined),
  });
}

/**
 * Two runs side by side (`GET /v2/evals/runs/:id/compare/:baseId`): how many items regressed,
 * improved or stayed, each grader's means in both, then the items, regressions first, each with
 * both answers and their scores.
 */
export function CompareScreen() {
  const { id, baseId } = useParams() as { id: string; baseId: string };
  const candidate = useRun(id);
  const base = useRun(baseId);
  const regressed = useComparison(id, baseId, 'regressed');
  const improved = useComparison(id, baseId, 'improved');
  const unchanged = useComparison(id, baseId, 'unchanged');
  const inputs = useItemInputs(candidate.data?.dataset.name, candidate.data?.dataset.version);
  const queries = { regressed, improved, unchanged };

  if (candidate.isPending || base.isPending || regressed.isPending) return <Loading />;
  const error = candidate.error ?? base.error ?? regressed.error;
  if (error) return <ErrorNote error={error} />;
  const summary = regressed.data!.pages[0];
  const b = base.data!;
  const c = candidate.data!;
  return (
    <>
      <h1>Comparison of two runs</h1>
      <div className="columns compare-head">
        <RunCard role="Base" run={b} />
        <RunCard role="Candidate" run={c} />
      </div>
      {b.dataset.name !== c.dataset.name || b.dataset.version !== c.dataset.version ? (
        <Notice>
          The runs are over different datasets or versions ({b.dataset.name} v{b.dataset.version}, {c.dataset.name} v{c.dataset.version}):
          only the items both hold are compared.
        </Notice>
      ) : null}
      <Counts counts={summary.counts} />
      <h2>Graders</h2>
      <DataTable
        label="Mean score and pass rate per grader, base and candidate"
        columns={['Grader', 'Base mean', 'Candidate mean', 'Change', 'Base pass rate', 'Candidate pass rate']}
      >
        {summary.graders.map((g) => {
          const delta = g.baseMean !== null && g.candidateMean !== null ? g.candidateMean - g.baseMean : null;
          return (
            <tr key={g.name}>
              <td>{g.name}</td>
              <td>{score(g.baseMean)}</td>
              <td>{score(g.candidateMean)}</td>
              <td className={delta === null || Math.abs(delta) < 1e-9 ? undefined : delta < 0 ? 'error-text' : 'success'}>
                {delta === null ? '—' : `${delta > 0 ? '+' : ''}${delta.toFixed(2)}`}
              </td>
              <td>{percent(g.basePassRate)}</td>
              <td>{percent(g.candidatePassRate)}</td>
            </tr>
          );
        })}
      </DataTable>
      {OUTCOMES.map(({ outcome, title }) => {
        const query = queries[outcome];
        const rows = query.data?.pages.flatMap((page) => page.data) ?? [];
        return (
          <section key={outcome} aria-labelledby={`outcome-${outcome}`}>
            <h2 id={`outcome-${outcome}`}>
              {title} ({summary.counts[outcome]})
            </h2>
            <ErrorNote error={query.error} />
            {query.isPending ? <Loading /> : null}
            {query.isSuccess && rows.length === 0 ? <p className="muted">None.</p> : null}
            <ol className="compared" aria-label={`${title} items`}>
              {rows.map((row) => (
                <ComparedItem key={row.id} row={row} outcome={outcome} input={inputs.data?.get(row.id)} />
              ))}
            </ol>
            <LoadMore pages={query} />
          </section>
        );
      })}
    </>
  );
}

function RunCard({ role, run }: { role: string; run: Run }) {
  return (
    <section className="panel" aria-label={`${role} run`}>
      <div className="muted small">{role}</div>
      <Link to={`/evals/runs/${run.id}`}>{run.name}</Link>
      <div className="small">
        {targetLabel(run.target)} · {run.progress.passed} of {run.progress.total} passed every grader · {run.status}
      </div>
    </section>
  );
}

function Counts({ counts }: { counts: Comparison['counts'] }) {
  return (
    <Stats
      label="Items"
      items={[
        { label: 'Regressed', value: counts.regressed, tone: 'danger' },
        { label: 'Improved', value: counts.improved, tone: 'ok' },
        { label: 'Unchanged', value: counts.unchanged },
        { label: 'Only in base', value: counts.onlyInBase, tone: 'muted' },
        { label: 'Only in candidate', value: counts.onlyInCandidate, tone: 'muted' },
      ]}
    />
  );
}

function ComparedItem({ row, outcome, input }: { row: Comparison['data'][number]; outcome: Outcome; input: DatasetItem | undefined }) {
  return (
    <li className={`compared-item ${outcome}`}>
      <div className="row spread">
        <ItemInput item={input} />
        <Badge tone={row.delta < 0 ? 'danger' : row.delta > 0 ? 'ok' : undefined}>
          {outcome} · score {score(row.base.score)} → {score(row.candidate.score)}
        </Badge>
      </div>
      <div className="columns">
        <div>
          <h3 className="small muted">Base</h3>
          <ItemResult item={row.base} />
        </div>
        <div>
          <h3 className="small muted">Candidate</h3>
          <ItemResult item={row.candidate} />
        </div>
      </div>
    </li>
  );
}
