import { useInfiniteQuery } from '@tanstack/react-query';
import { Button } from 'react-aria-components';
import { Link, useParams } from 'react-router';

import { api, unwrap } from '../../api/client';
import { ErrorNote, Loading } from '../../components/ui';
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
        <p className="notice" role="note">
          The runs are over different datasets or versions ({b.dataset.name} v{b.dataset.version}, {c.dataset.name} v{c.dataset.version}):
          only the items both hold are compared.
        </p>
      ) : null}
      <Counts counts={summary.counts} />
      <h2>Graders</h2>
      <table className="table">
        <caption className="sr-only">Mean score and pass rate per grader, base and candidate</caption>
        <thead>
          <tr>
            <th scope="col">Grader</th>
            <th scope="col">Base mean</th>
            <th scope="col">Candidate mean</th>
            <th scope="col">Change</th>
            <th scope="col">Base pass rate</th>
            <th scope="col">Candidate pass rate</th>
          </tr>
        </thead>
        <tbody>
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
        </tbody>
      </table>
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
            {query.hasNextPage ? (
              <Button className="button secondary" onPress={() => void query.fetchNextPage()} isDisabled={query.isFetchingNextPage}>
                Load more
              </Button>
            ) : null}
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
    <dl className="counts">
      <div className="error-text">
        <dt>Regressed</dt>
        <dd>{counts.regressed}</dd>
      </div>
      <div className="success">
        <dt>Improved</dt>
        <dd>{counts.improved}</dd>
      </div>
      <div>
        <dt>Unchanged</dt>
        <dd>{counts.unchanged}</dd>
      </div>
      <div className="muted">
        <dt>Only in base</dt>
        <dd>{counts.onlyInBase}</dd>
      </div>
      <div className="muted">
        <dt>Only in candidate</dt>
        <dd>{counts.onlyInCandidate}</dd>
      </div>
    </dl>
  );
}

function ComparedItem({ row, outcome, input }: { row: Comparison['data'][number]; outcome: Outcome; input: DatasetItem | undefined }) {
  return (
    <li className={`compared-item ${outcome}`}>
      <div className="row spread">
        <ItemInput item={input} />
        <span className={row.delta < 0 ? 'badge status-failed' : row.delta > 0 ? 'badge status-completed' : 'badge'}>
          {outcome} · score {score(row.base.score)} → {score(row.candidate.score)}
        </span>
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
