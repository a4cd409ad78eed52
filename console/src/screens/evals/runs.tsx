import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';

import { ButtonLink } from '../../components/button';
import { Picker } from '../../components/fields';
import { DataTable } from '../../components/table';
import { EmptyState, ErrorNote, formatTime, Loading, LoadMore } from '../../components/ui';
import { score, StatusBadge, targetLabel, usd } from './format';
import { useRuns } from './queries';

/** Every experiment run of the project (or one prompt's: `?prompt=`), newest first; pick two to compare. */
export function RunsScreen() {
  const [params] = useSearchParams();
  const prompt = params.get('prompt') ?? undefined;
  return (
    <>
      <h1>Experiments{prompt ? ` of ${prompt}` : ''}</h1>
      <p className="muted">
        Each run sends a dataset&apos;s items to a prompt version (or a draft) and grades the answers. Start one from a prompt&apos;s page
        or from the playground. {prompt ? <Link to="/evals/runs">All runs</Link> : <Link to="/graders">Graders</Link>}
      </p>
      <RunsTable prompt={prompt} />
    </>
  );
}

/** Runs, newest first, with their pass counts and mean scores; two picked runs open side by side. */
export function RunsTable({ prompt }: { prompt?: string }) {
  const runs = useRuns(prompt);
  const list = runs.data?.pages.flatMap((page) => page.data) ?? [];
  const [base, setBase] = useState('');
  const [candidate, setCandidate] = useState('');
  if (runs.isPending) return <Loading />;
  if (runs.error) return <ErrorNote error={runs.error} />;
  if (list.length === 0)
    return (
      <EmptyState title="No runs yet">
        <p>
          {prompt
            ? 'Run an experiment on a version of this prompt: pick a dataset and graders, and the run appears here.'
            : 'Open a prompt and choose "Run an experiment", or run a draft from the playground.'}
        </p>
      </EmptyState>
    );
  // By default the newest run is compared with the one before it.
  const pickedCandidate = candidate || list[0]?.id || '';
  const pickedBase = base || list.find((r) => r.id !== pickedCandidate)?.id || '';
  const items = list.map((r) => ({ id: r.id, label: `${r.name} · ${formatTime(r.createdAt)}` }));
  return (
    <>
      <DataTable
        label="Experiment runs, newest first"
        columns={['Run', 'Status', 'Target', 'Dataset', 'Passed', 'Mean scores', 'Cost', 'Started']}
      >
        {list.map((r) => (
          <tr key={r.id}>
            <td>
              <Link to={`/evals/runs/${r.id}`}>{r.name}</Link>
            </td>
            <td>
              <StatusBadge status={r.status} />
            </td>
            <td>{targetLabel(r.target)}</td>
            <td>
              {r.dataset.name} v{r.dataset.version}
            </td>
            <td>
              {r.progress.passed} of {r.progress.total}
            </td>
            <td>
              {r.graders.map((g) => (
                <div key={g.name} className="small nowrap">
                  {g.name}: {score(g.meanScore)}
                </div>
              ))}
            </td>
            <td>{usd(r.usage.costUsd)}</td>
            <td>{formatTime(r.startedAt ?? r.createdAt)}</td>
          </tr>
        ))}
      </DataTable>
      <LoadMore pages={runs} />
      {list.length > 1 ? (
        <fieldset className="row">
          <legend>Compare two runs</legend>
          <Picker label="Base run" placeholder="Choose a run" items={items} value={pickedBase} onChange={setBase} />
          <Picker label="Candidate run" placeholder="Choose a run" items={items} value={pickedCandidate} onChange={setCandidate} />
          {pickedBase && pickedCandidate && pickedBase !== pickedCandidate ? (
            <ButtonLink tone="secondary" to={`/evals/runs/${pickedCandidate}/compare/${pickedBase}`}>
              Compare the two runs
            </ButtonLink>
          ) : null}
        </fieldset>
      ) : null}
    </>
  );
}
