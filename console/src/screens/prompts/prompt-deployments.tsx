import { Link } from 'react-router';

import type { Schemas } from '../../api/client';
import { DataTable } from '../../components/table';
import { ConfirmButton, formatTime } from '../../components/ui';
import { UndeployButton } from './prompt-lifecycle';

type Deployment = Schemas['DeploymentDto'];
type DeployBody = Schemas['DeployDto'];
type Live = Schemas['PromptDeploymentDto'];

const armsText = (split: NonNullable<Deployment['split']>) => split.map((arm) => `v${arm.version} (${arm.weight})`).join(', ');

/** Whether two deployments serve the same: one version, or the same split. */
const sameAs = (a: Deployment, b: Deployment | undefined) =>
  !!b &&
  a.version === b.version &&
  JSON.stringify(a.split) === JSON.stringify(b.split) &&
  a.stickyBy === b.stickyBy &&
  JSON.stringify(a.guards) === JSON.stringify(b.guards);

/** The body that deploys `row` again as it was: its version, or its split with its stickiness and rules. */
function againBody(row: Deployment): DeployBody {
  if (!row.split) return { environment: row.environment, version: row.version };
  return {
    environment: row.environment,
    split: row.split,
    ...(row.stickyBy ? { stickyBy: row.stickyBy } : {}),
    ...(row.rules?.length ? { rules: row.rules } : {}),
    ...(row.guards?.length ? { guards: row.guards } : {}),
  };
}

/**
 * What each environment runs (a version, or a split's arms), when it was deployed, a confirmed
 * button back to its previous deployment, a link to its split and per-arm results
 * (docs/console.md, "Splits"), and a confirmed Undeploy (prompt-lifecycle.tsx).
 */
export function DeploymentsTable({
  slug,
  live,
  history,
  onDeploy,
}: {
  slug: string;
  live: Live[];
  history: Deployment[] | undefined;
  onDeploy: (body: DeployBody) => void;
}) {
  return (
    <DataTable
      label="Deployments"
      columns={['Environment', 'Live version', 'Deployed', 'Previous deployment', 'Split and results', 'Undeploy']}
    >
      {live.map((d) => {
        const rows = history?.filter((row) => row.environment === d.environment) ?? [];
        const now = rows.find((row) => row.current);
        const previous = rows.filter((row) => !row.current).sort((x, y) => y.deploymentVersion - x.deploymentVersion)[0];
        const split = now?.split;
        const action = split ? 'Arms and results' : 'Set up a split';
        return (
          <tr key={d.environment}>
            <td>{d.environment}</td>
            <td>{split ? `split: ${armsText(split)}` : `v${d.version}`}</td>
            <td>{formatTime(d.deployedAt)}</td>
            <td>
              {previous && now && !sameAs(previous, now) ? (
                <PreviousDeployment now={now} previous={previous} onConfirm={() => onDeploy(againBody(previous))} />
              ) : (
                <span className="muted">no earlier deployment</span>
              )}
            </td>
            <td>
              <Link
                to={`/prompts/${encodeURIComponent(slug)}/split/${encodeURIComponent(d.environment)}`}
                aria-label={`${action} in ${d.environment}`}
              >
                {action}
              </Link>
            </td>
            <td>
              <UndeployButton slug={slug} environment={d.environment} />
            </td>
          </tr>
        );
      })}
    </DataTable>
  );
}

/**
 * Back to what an environment ran before, labelled by the direction it moves: "Roll back
 * production to v1" when the previous deployment is an older version, "Deploy v3 to production"
 * when it is a newer one (after a roll back); "Restore production's previous split" or "Back to
 * v1 alone in production" around a split. None is destructive (the other is one click away), so
 * none is red; all are confirmed.
 */
function PreviousDeployment({ now, previous, onConfirm }: { now: Deployment; previous: Deployment; onConfirm: () => void }) {
  const environment = now.environment;
  const running = now.split ? `the split ${armsText(now.split)}` : `v${now.version}`;
  if (previous.split || now.split) {
    const label = previous.split ? `Restore ${environment}'s previous split` : `Back to v${previous.version} alone in ${environment}`;
    return (
      <ConfirmButton label={label} title={`${label}?`} confirmLabel={`Deploy to ${environment}`} tone="secondary" onConfirm={onConfirm}>
        <p>
          {environment} runs {running}. It will run{' '}
          {previous.split ? `the split ${armsText(previous.split)}` : `v${previous.version} alone`} again, at once, for every caller.
        </p>
      </ConfirmButton>
    );
  }
  const back = previous.version < now.version;
  return (
    <ConfirmButton
      label={back ? `Roll back ${environment} to v${previous.version}` : `Deploy v${previous.version} to ${environment}`}
      title={back ? `Roll back ${environment} to v${previous.version}?` : `Deploy v${previous.version} to ${environment} again?`}
      confirmLabel={`Deploy v${previous.version} to ${environment}`}
      tone="secondary"
      onConfirm={onConfirm}
    >
      <p>
        {environment} runs {running}. It will run v{previous.version} again ({back ? 'an older' : 'a newer'} version), at once, for every
        caller.
      </p>
    </ConfirmButton>
  );
}
