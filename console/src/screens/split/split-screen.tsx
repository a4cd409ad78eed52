import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';

import { api, ApiError, unwrap } from '../../api/client';
import { Button } from '../../components/button';
import { Picker } from '../../components/fields';
import { EmptyState, ErrorNote, formatTime, Loading, Notice } from '../../components/ui';
import { useCan } from '../../session';
import { isDeploymentRequest, REQUESTS_KEY, WaitingNote } from '../people/deployment-requests';
import { promptKey, useEnvironments, usePrompt, useVersions } from '../prompts/prompt-queries';
import { ArmsTable, Verdicts } from './arms';
import { SplitForm } from './split-form';
import type { DeployBody } from './split-plan';

/** How often the arms' results are read again while the screen is open. */
export const REFRESH_MS = 5000;

/**
 * A prompt's deployment in one environment as a live experiment (docs/console.md, "Splits"): the
 * arms with their per-arm results and verdicts (read every few seconds), Promote and Stop on an
 * arm, and the form that sets up a split.
 */
export function SplitScreen() {
  const params = useParams();
  const slug = params.slug!;
  const environment = params.environment!;
  const navigate = useNavigate();
  const prompt = usePrompt(slug);
  const versions = useVersions(slug);
  const environments = useEnvironments();
  const canDeploy = useCan('deploy');
  const client = useQueryClient();
  const current = useQuery({
    queryKey: [...promptKey(slug), 'current', environment],
    queryFn: async () => {
      const list = await unwrap(api.GET('/v2/deployments', { params: { query: { slug, environment } } }));
      return list.data.find((d) => d.slug === slug && d.environment === environment) ?? null;
    },
    refetchInterval: REFRESH_MS,
  });
  const results = useQuery({
    queryKey: [...promptKey(slug), 'results', environment],
    queryFn: async () => {
      try {
        return await unwrap(api.GET('/v2/prompts/{slug}/deployments/{environment}/results', { params: { path: { slug, environment } } }));
      } catch (err) {
        // Nothing deployed there yet: no arms, only the form.
        if (err instanceof ApiError && err.status === 404 && err.message.startsWith('No deployment')) return null;
        throw err;
      }
    },
    refetchInterval: REFRESH_MS,
  });
  const deploy = useMutation({
    mutationFn: (body: DeployBody) => unwrap(api.POST('/v2/prompts/{slug}/deployments', { params: { path: { slug } }, body })),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: promptKey(slug) });
      void client.invalidateQueries({ queryKey: ['prompts'] });
      void client.invalidateQueries({ queryKey: [REQUESTS_KEY] });
    },
  });

  if (prompt.isPending || versions.isPending || current.isPending) return <Loading />;
  if (prompt.error || versions.error || current.error) return <ErrorNote error={prompt.error ?? versions.error ?? current.error} />;
  const live = current.data ?? undefined;
  const split = live?.split ?? null;
  const envs = environments.data?.data.map((e) => e.slug) ?? [environment];
  const refresh = () => void client.invalidateQueries({ queryKey: promptKey(slug) });

  return (
    <>
      <h1>
        {slug} in {environment}
      </h1>
      <p className="row">
        <Link to={`/prompts/${encodeURIComponent(slug)}`}>Back to {slug}</Link>
        <Picker
          label="Environment"
          labelHidden
          items={envs}
          value={environment}
          onChange={(next) => navigate(`/prompts/${encodeURIComponent(slug)}/split/${encodeURIComponent(next)}`)}
        />
        <Link to={`/logs?slug=${encodeURIComponent(slug)}&environment=${encodeURIComponent(environment)}`}>
          Logs of {slug} in {environment}
        </Link>
      </p>
      <ErrorNote error={deploy.error} />
      {deploy.isSuccess && !deploy.isPending && isDeploymentRequest(deploy.data) ? <WaitingNote request={deploy.data} /> : null}
      {deploy.isSuccess && !deploy.isPending && !isDeploymentRequest(deploy.data) ? (
        <p role="status" className="success">
          Deployed: {environment} now runs{' '}
          {deploy.data.split
            ? deploy.data.split.map((arm) => `v${arm.version} (weight ${arm.weight})`).join(', ')
            : `v${deploy.data.version} alone`}{' '}
          (deployment {deploy.data.deploymentVersion}).
        </p>
      ) : null}

      <section aria-labelledby="arms">
        <h2 id="arms">Arms</h2>
        {live ? (
          <p className="muted">
            Deployment {live.deploymentVersion}, since {formatTime(live.deployedAt)}:{' '}
            {split ? `a split of ${split.length} arms, sticky by ${live.stickyBy ?? 'thread'}` : `v${live.version} alone (no split)`}
            {live.rules?.length ? `, ${live.rules.length} rule${live.rules.length === 1 ? '' : 's'}` : ''}. Results are read every{' '}
            {REFRESH_MS / 1000} s{results.dataUpdatedAt ? ` (last at ${formatTime(new Date(results.dataUpdatedAt).toISOString())})` : ''}.{' '}
            <Button tone="secondary" small onPress={refresh}>
              Refresh now
            </Button>
          </p>
        ) : null}
        <ErrorNote error={results.error} />
        {!live ? (
          <EmptyState title={`Nothing deployed in ${environment}`}>
            <p>Deploy a version or a split with the form below.</p>
          </EmptyState>
        ) : results.isPending ? (
          <Loading />
        ) : results.data ? (
          <>
            <ArmsTable
              slug={slug}
              results={results.data}
              current={live}
              canDeploy={canDeploy}
              pending={deploy.isPending}
              onDeploy={(body) => deploy.mutate(body)}
            />
            <Verdicts results={results.data} />
          </>
        ) : null}
        {live && !split ? (
          <p className="muted">A plain deployment is one arm: set up a split below to try another version beside it.</p>
        ) : null}
      </section>

      {canDeploy ? (
        <SplitForm
          // A new deployment (after any change) starts the form again from what is live.
          key={`${environment}:${live?.id ?? 'none'}`}
          environment={environment}
          current={live}
          versions={versions.data.data}
          pending={deploy.isPending}
          onDeploy={(body) => deploy.mutate(body)}
        />
      ) : (
        <Notice>This key cannot deploy (it lacks the deploy scope): the arms and results are read-only.</Notice>
      )}
    </>
  );
}
