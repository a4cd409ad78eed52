import { Link } from 'react-router';

import { DataTable } from '../../components/table';
import { Badge, ConfirmButton, formatTime } from '../../components/ui';
import {
  type ArmResult,
  costText,
  type DeployBody,
  type Deployment,
  differenceText,
  errorRateText,
  feedbackText,
  isShare,
  latencyText,
  promoteBody,
  type Results,
  shareText,
  stopBody,
  type Verdict,
} from './split-plan';

/**
 * The arms side by side (`GET …/deployments/{environment}/results`): weight and share, calls, error
 * rate, latency, cost per call and each feedback name's mean with its 95 % interval; Promote on an
 * arm of a split, Stop on an arm other than the control, both confirmed.
 */
export function ArmsTable({
  slug,
  results,
  current,
  canDeploy,
  pending,
  onDeploy,
}: {
  slug: string;
  results: Results;
  current: Deployment;
  canDeploy: boolean;
  pending: boolean;
  onDeploy: (body: DeployBody) => void;
}) {
  const total = results.arms.reduce((sum, arm) => sum + arm.weight, 0);
  const live = results.arms.filter((arm) => arm.weight > 0).length;
  // The results may still be those of the deployment just replaced: act only on what they describe.
  const actionable = canDeploy && !!current.split && current.id === results.deploymentId;
  const env = results.environment;
  return (
    <>
      <DataTable
        label={`Arms of ${env}`}
        className="arms"
        columns={[
          'Arm',
          'Weight',
          'Calls',
          'Error rate',
          'Latency p50 / p95',
          'Cost per call',
          'Feedback (mean, 95 % CI)',
          actionable && 'Actions',
        ]}
      >
        {results.arms.map((arm) => (
          <tr key={arm.version}>
            <th scope="row">
              <Link
                to={`/logs?slug=${encodeURIComponent(slug)}&version=${arm.version}&environment=${encodeURIComponent(env)}`}
                aria-label={`v${arm.version}: its logs in ${env}`}
              >
                v{arm.version}
              </Link>{' '}
              {arm.control ? <Badge>control</Badge> : null}
              {current.split && arm.weight === 0 ? <Badge tone="danger">stopped</Badge> : null}
            </th>
            <td className="nowrap">{current.split ? `${arm.weight} (${shareText(arm.weight, total)})` : 'every call'}</td>
            <td>
              {arm.calls}
              {arm.errors ? <span className="muted small"> ({arm.errors} failed)</span> : null}
            </td>
            <td>{errorRateText(arm)}</td>
            <td className="nowrap">
              {latencyText(arm.latencyMs.p50)} / {latencyText(arm.latencyMs.p95)}
            </td>
            <td>
              {costText(arm.costPerCallUsd)}
              {arm.unpricedCalls ? <span className="muted small"> ({arm.unpricedCalls} calls without a known price)</span> : null}
            </td>
            <td>
              {arm.feedback.length ? (
                <ul className="plain" aria-label={`Feedback on v${arm.version}`}>
                  {arm.feedback.map((f) => (
                    <li key={f.name}>
                      <strong>{f.name}</strong>: {feedbackText(f)}
                    </li>
                  ))}
                </ul>
              ) : (
                <span className="muted">none yet</span>
              )}
            </td>
            {actionable ? (
              <td>
                <div className="row">
                  <Promote
                    environment={env}
                    arm={arm}
                    winner={isWinner(results, arm.version)}
                    pending={pending}
                    onConfirm={() => onDeploy(promoteBody(env, arm.version))}
                  />
                  {!arm.control && arm.weight > 0 ? (
                    <ConfirmButton
                      label={`Stop v${arm.version}`}
                      title={`Stop v${arm.version} in ${env}?`}
                      confirmLabel={`Stop v${arm.version}`}
                      tone="secondary"
                      isDisabled={pending || live < 2}
                      onConfirm={() => onDeploy(stopBody(current, arm.version))}
                    >
                      <p>
                        Its weight becomes 0: its share of {env}&apos;s calls goes to the other arms at once. It stays in the split (give it
                        a weight again to resume); its results stay here.
                      </p>
                    </ConfirmButton>
                  ) : null}
                </div>
              </td>
            ) : null}
          </tr>
        ))}
      </DataTable>
      <Footnotes results={results} />
    </>
  );
}

/** An arm that beat the control on some measure and lost on none. */
function isWinner(results: Results, version: number): boolean {
  const own = results.verdicts.filter((v) => v.version === version && v.winner !== null);
  return own.length > 0 && own.every((v) => v.winner === version);
}

/** Promote: the accent on a winning arm (isWinner), outlined otherwise. */
function Promote({
  environment,
  arm,
  winner,
  pending,
  onConfirm,
}: {
  environment: string;
  arm: ArmResult;
  winner: boolean;
  pending: boolean;
  onConfirm: () => void;
}) {
  return (
    <ConfirmButton
      label={`Promote v${arm.version}`}
      tone={winner ? 'primary' : 'secondary'}
      title={`Promote v${arm.version} in ${environment}?`}
      confirmLabel={`Deploy v${arm.version} alone`}
      isDisabled={pending}
      onConfirm={onConfirm}
    >
      <p>
        {environment} will run v{arm.version} for every call, at once: the split ends. It stays in the deployment history; deploying it
        again brings it back.
      </p>
    </ConfirmButton>
  );
}

/** What the counted figures include beyond this deployment's own calls (docs/experiments.md, "What is counted"). */
function Footnotes({ results }: { results: Results }) {
  const shared = results.arms.filter((arm) => arm.firstHourShared).map((arm) => `v${arm.version}`);
  const before = results.arms.filter((arm) => arm.servedBefore).map((arm) => `v${arm.version}`);
  return (
    <ul className="muted small">
      <li>
        Calls are counted from {formatTime(results.countedFrom)}, the start of the hour of this deployment ({formatTime(results.since)}):
        usage is kept per hour.
        {shared.length ? ` ${shared.join(', ')}: that first hour includes calls of the deployment before.` : ''}
      </li>
      {before.length ? (
        <li>{before.join(', ')}: the feedback includes calls that earlier deployments in this environment served with the same version.</li>
      ) : null}
    </ul>
  );
}

const metricName = (verdict: Verdict) => (verdict.metric === 'error_rate' ? 'error rate' : `“${verdict.name}”`);

/** Each arm against the control, on the error rate and each feedback name: the verdict, or why there is none yet. */
export function Verdicts({ results }: { results: Results }) {
  if (results.verdicts.length === 0) return null;
  return (
    <section aria-labelledby="verdicts">
      <h3 id="verdicts">Verdicts against the control</h3>
      <ul className="verdicts">
        {results.verdicts.map((verdict) => {
          const difference = differenceText(verdict, isShare(verdict, results.arms));
          return (
            <li key={`${verdict.version}:${verdict.metric}:${verdict.name ?? ''}`}>
              <strong>
                v{verdict.version} against v{verdict.control}, {metricName(verdict)}:
              </strong>{' '}
              {verdict.verdict ? (
                <span className={verdict.winner === verdict.version ? 'success' : 'error-text'}>{verdict.verdict}</span>
              ) : (
                <span className="muted">
                  {verdict.reason ?? 'no verdict'}
                  {difference ? ` (difference ${difference})` : ''}
                </span>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
