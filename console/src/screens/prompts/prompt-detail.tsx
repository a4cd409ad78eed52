import { useMutation, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useState } from 'react';
import { Tab, TabList, TabPanel, Tabs } from 'react-aria-components';
import { Link, useParams, useSearchParams } from 'react-router';

import { api, type Schemas, unwrap, type Version } from '../../api/client';
import { ButtonLink } from '../../components/button';
import { Picker } from '../../components/fields';
import { DataTable } from '../../components/table';
import { Badge, ConfirmButton, EmptyState, ErrorNote, formatTime, Loading } from '../../components/ui';
import { useProject } from '../../session';
import { isDeploymentRequest, REQUESTS_KEY, WaitingForApproval, WaitingNote } from '../people/deployment-requests';
import { routingLines } from '../playground/routing-draft';
import { DeploymentsTable } from './prompt-deployments';
import { ArchiveButton, ArchivedBanner } from './prompt-lifecycle';
import { LivePrompt } from './prompt-live';
import { promptKey, useDeploymentHistory, useEnvironments, usePrompt, useVersions } from './prompt-queries';
import { snippetsFor } from './snippets';

// The experiments section (runs, the launcher) is loaded with the evaluation screens, not with the first load.
const PromptExperiments = lazy(() => import('../evals/prompt-experiments'));

/** A prompt: what is live where, its versions (diff any two), deploy and roll back, and how to call it. */
export function PromptDetailScreen() {
  const slug = useParams().slug!;
  const prompt = usePrompt(slug);
  const versions = useVersions(slug);
  const history = useDeploymentHistory(slug);
  const environments = useEnvironments();
  const [params, setParams] = useSearchParams();
  const client = useQueryClient();
  const deploy = useMutation({
    mutationFn: (input: Schemas['DeployDto']) =>
      unwrap(api.POST('/v2/prompts/{slug}/deployments', { params: { path: { slug } }, body: input })),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: promptKey(slug) });
      void client.invalidateQueries({ queryKey: ['prompts'] });
      void client.invalidateQueries({ queryKey: [REQUESTS_KEY] });
    },
  });

  if (prompt.isPending || versions.isPending) return <Loading />;
  if (prompt.error || versions.error) return <ErrorNote error={prompt.error ?? versions.error} />;
  const list = versions.data.data;
  const live = prompt.data.deployments;
  const envs = environments.data?.data.map((e) => e.slug) ?? [];
  const a = params.get('a') ?? (list[1] ? String(list[1].version) : '');
  const b = params.get('b') ?? (list[0] ? String(list[0].version) : '');
  const pick = (name: 'a' | 'b', value: string) => setParams((prev) => ({ ...Object.fromEntries(prev), [name]: value }), { replace: true });

  return (
    <>
      <h1>
        {slug} <Badge>{prompt.data.kind}</Badge>
      </h1>
      <ArchivedBanner prompt={prompt.data} />
      <p className="row">
        <ButtonLink to={`/prompts/${encodeURIComponent(slug)}/playground`}>Edit in playground</ButtonLink>
        <ButtonLink tone="secondary" to={`/logs?slug=${encodeURIComponent(slug)}`}>
          Logs of {slug}
        </ButtonLink>
        <ArchiveButton prompt={prompt.data} />
      </p>
      <ErrorNote error={deploy.error} />
      {deploy.data && isDeploymentRequest(deploy.data) ? <WaitingNote request={deploy.data} /> : null}

      <section aria-labelledby="live">
        <h2 id="live">Deployments</h2>
        {live.length === 0 ? (
          <p className="muted">
            Not deployed anywhere yet: deploy a version below, or{' '}
            <Link
              to={`/prompts/${encodeURIComponent(slug)}/split/${encodeURIComponent(envs.includes('production') ? 'production' : (envs[0] ?? 'production'))}`}
            >
              set up a split
            </Link>
            .
          </p>
        ) : (
          <div className="table-scroll">
            <DeploymentsTable slug={slug} live={live} history={history.data?.data} onDeploy={(body) => deploy.mutate(body)} />
          </div>
        )}
        <WaitingForApproval slug={slug} />
      </section>

      <LivePrompt slug={slug} live={live} versions={list} history={history.data?.data} />

      <section aria-labelledby="versions">
        <h2 id="versions">Versions</h2>
        {list.length === 0 ? (
          <EmptyState title="No versions yet">
            <p>
              Write the first version in the <Link to={`/prompts/${encodeURIComponent(slug)}/playground`}>playground</Link> and save it.
            </p>
          </EmptyState>
        ) : (
          <>
            <fieldset className="row">
              <legend>Compare two versions</legend>
              <VersionPicker label="From" versions={list} value={a} onChange={(v) => pick('a', v)} />
              <VersionPicker label="To" versions={list} value={b} onChange={(v) => pick('b', v)} />
              {a && b ? (
                <ButtonLink tone="secondary" to={`/prompts/${encodeURIComponent(slug)}/diff?a=${a}&b=${b}`}>
                  Show the diff of v{a} and v{b}
                </ButtonLink>
              ) : null}
            </fieldset>
            <DataTable label="Versions" columns={['Version', 'Model', 'Note', 'Created', 'Live in', 'Actions']}>
              {list.map((version) => (
                <tr key={version.id}>
                  <td>v{version.version}</td>
                  <td>
                    {version.provider}/{version.model}
                    {version.routing ? (
                      <Badge title={routingLines(version.routing, undefined).join('\n')}>
                        {`routing: ${version.routing.strategy}, ${version.routing.targets.length} target${version.routing.targets.length === 1 ? '' : 's'}`}
                      </Badge>
                    ) : null}
                  </td>
                  <td>{version.message ?? <span className="muted">—</span>}</td>
                  <td>{formatTime(version.createdAt)}</td>
                  <td>
                    {live
                      .filter((d) => d.version === version.version)
                      .map((d) => (
                        <Badge key={d.environment}>{d.environment}</Badge>
                      ))}
                  </td>
                  <td className="row">
                    <Link to={`/prompts/${encodeURIComponent(slug)}/playground?from=${version.version}`}>
                      Open v{version.version} in playground
                    </Link>
                    <DeployButton
                      version={version}
                      environments={envs}
                      live={live}
                      onDeploy={(environment) => deploy.mutate({ environment, version: version.version })}
                    />
                  </td>
                </tr>
              ))}
            </DataTable>
          </>
        )}
      </section>

      {list.length > 0 ? (
        <Suspense fallback={<Loading />}>
          <PromptExperiments slug={slug} versions={list} deployments={live} />
        </Suspense>
      ) : null}

      {live.length > 0 ? (
        <UseIt
          slug={slug}
          kind={prompt.data.kind}
          environments={live.map((d) => d.environment)}
          variables={list.find((v) => v.version === live[0].version)?.declaredVariables ?? []}
        />
      ) : null}
    </>
  );
}

function VersionPicker({
  label,
  versions,
  value,
  onChange,
}: {
  label: string;
  versions: Version[];
  value: string;
  onChange: (value: string) => void;
}) {
  return (
    <Picker
      label={label}
      placeholder="Choose a version"
      items={versions.map((v) => ({ id: String(v.version), label: `v${v.version}` }))}
      value={value}
      onChange={onChange}
    />
  );
}

function DeployButton(props: {
  version: Version;
  environments: string[];
  live: { environment: string; version: number }[];
  onDeploy: (environment: string) => void;
}) {
  const [chosen, setEnvironment] = useState('');
  // The environments may arrive after the first render: until one is chosen, production (or the first).
  const environment = chosen || (props.environments.includes('production') ? 'production' : (props.environments[0] ?? ''));
  const current = props.live.find((d) => d.environment === environment);
  return (
    <span className="row">
      <Picker
        label={`Environment for v${props.version.version}`}
        labelHidden
        placeholder="Choose an environment"
        items={props.environments}
        value={environment}
        onChange={setEnvironment}
      />
      <ConfirmButton
        label={`Deploy v${props.version.version}`}
        title={`Deploy v${props.version.version} to ${environment}?`}
        confirmLabel={`Deploy to ${environment}`}
        isDisabled={!environment || current?.version === props.version.version}
        onConfirm={() => props.onDeploy(environment)}
      >
        <p>
          {environment} {current ? `runs v${current.version}` : 'runs nothing yet'}. Every call to it will use v{props.version.version} at
          once.
        </p>
      </ConfirmButton>
    </span>
  );
}

function UseIt({ slug, kind, environments, variables }: { slug: string; kind: string; environments: string[]; variables: string[] }) {
  const scope = useProject();
  const [environment, setEnvironment] = useState(environments.includes('production') ? 'production' : environments[0]);
  if (!scope) return null;
  const snippets = snippetsFor({
    origin: window.location.origin,
    workspace: scope.workspace,
    project: scope.project,
    slug,
    environment,
    variables,
    assistant: kind === 'assistant',
  });
  return (
    <section aria-labelledby="use-it">
      <h2 id="use-it">Use it</h2>
      <Picker label="Deployment for the snippets" labelHidden items={environments} value={environment} onChange={setEnvironment} />
      <Tabs>
        <TabList aria-label="Snippet language" className="tabs">
          <Tab id="curl">curl</Tab>
          <Tab id="openai">openai SDK</Tab>
          <Tab id="langtail">langtail SDK</Tab>
        </TabList>
        {(['curl', 'openai', 'langtail'] as const).map((name) => (
          <TabPanel key={name} id={name}>
            <pre className="code" tabIndex={0}>
              {snippets[name]}
            </pre>
          </TabPanel>
        ))}
      </Tabs>
    </section>
  );
}
