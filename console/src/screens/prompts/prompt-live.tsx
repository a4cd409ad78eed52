import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Tab, TabList, TabPanel, Tabs } from 'react-aria-components';
import { Link, useSearchParams } from 'react-router';

import { api, type Schemas, unwrap, type Version } from '../../api/client';
import { ChatTranscript } from '../../components/chat';
import { ErrorNote, formatTime, Loading } from '../../components/ui';
import { routingLines } from '../playground/routing-draft';
import { promptKey } from './prompt-queries';

type Live = Schemas['PromptDeploymentDto'];
type Deployment = Schemas['DeploymentDto'];

/**
 * What each environment runs (docs/console.md, "Screens"): a tab per environment (`?live=` in the
 * URL) with the live version's template messages as read-only chat bubbles and its configuration
 * (provider, model, parameters, variables with their defaults, tools, routing block and response
 * cache); a split shows each arm's version with its weight. Read from the versions the page holds,
 * or the one version when it is older than those.
 */
export function LivePrompt({
  slug,
  live,
  versions,
  history,
}: {
  slug: string;
  live: Live[];
  versions: Version[];
  history: Deployment[] | undefined;
}) {
  const [params, setParams] = useSearchParams();
  if (live.length === 0) return null;
  const names = live.map((d) => d.environment);
  const asked = params.get('live');
  const selected = asked && names.includes(asked) ? asked : names.includes('production') ? 'production' : names[0];
  const select = (key: string) =>
    setParams((prev) => ({ ...Object.fromEntries(prev), live: key }), { replace: true, preventScrollReset: true });
  return (
    <section aria-labelledby="live-template">
      <h2 id="live-template">Live template and configuration</h2>
      <Tabs selectedKey={selected} onSelectionChange={(key) => select(String(key))}>
        <TabList aria-label="Environment" className="tabs">
          {live.map((d) => (
            <Tab key={d.environment} id={d.environment}>
              {d.environment}
            </Tab>
          ))}
        </TabList>
        {live.map((d) => {
          const split = history?.find((row) => row.current && row.environment === d.environment)?.split ?? null;
          const arms = split ? split.map((arm) => ({ version: arm.version, weight: arm.weight })) : [{ version: d.version, weight: null }];
          const total = arms.reduce((sum, arm) => sum + (arm.weight ?? 0), 0);
          return (
            <TabPanel key={d.environment} id={d.environment}>
              <p className="muted">
                {split
                  ? `${d.environment} runs a split of ${arms.length} versions, deployed ${formatTime(d.deployedAt)}.`
                  : `${d.environment} runs v${d.version}, deployed ${formatTime(d.deployedAt)}.`}
              </p>
              {arms.map((arm) => (
                <LiveVersion
                  key={arm.version}
                  slug={slug}
                  environment={d.environment}
                  number={arm.version}
                  share={arm.weight === null ? null : total > 0 ? Math.round((arm.weight / total) * 1000) / 10 : 0}
                  known={versions.find((v) => v.version === arm.version)}
                />
              ))}
            </TabPanel>
          );
        })}
      </Tabs>
    </section>
  );
}

function LiveVersion({
  slug,
  environment,
  number,
  share,
  known,
}: {
  slug: string;
  environment: string;
  number: number;
  share: number | null;
  known: Version | undefined;
}) {
  // A version older than the page's list (its newest 100) is read on its own.
  const fetched = useQuery({
    queryKey: [...promptKey(slug), 'version', number],
    queryFn: () => unwrap(api.GET('/v2/prompts/{slug}/versions/{version}', { params: { path: { slug, version: String(number) } } })),
    enabled: !known,
  });
  const version = known ?? fetched.data;
  const title = `v${number}${share === null ? '' : ` · ${share} % of the calls`}`;
  if (!version) return fetched.error ? <ErrorNote error={fetched.error} /> : <Loading />;
  return (
    <article className="live-version" aria-label={`v${number} in ${environment}`}>
      <h3>
        {title}
        {version.message ? <span className="muted small"> — {version.message}</span> : null}
      </h3>
      <div className="live-grid">
        <div>
          <h4>Template messages</h4>
          {version.template.length === 0 ? (
            <p className="muted">An embedding entry: no template, the caller's input is embedded as it is.</p>
          ) : (
            <ChatTranscript label={`Template of v${number} in ${environment}`} messages={version.template} />
          )}
        </div>
        <div>
          <h4>Configuration</h4>
          <div className="table-scroll" role="region" aria-label={`Configuration of v${number} in ${environment}`} tabIndex={0}>
            <table className="table config-table" aria-label={`Configuration of v${number} in ${environment}`}>
              <tbody>
                <Row name="Provider">{version.provider}</Row>
                <Row name="Model">{version.model}</Row>
                <Row name="Parameters">
                  <Lines
                    lines={Object.entries(version.parameters)
                      .sort(([a], [b]) => a.localeCompare(b))
                      .map(([key, value]) => `${key}: ${JSON.stringify(value)}`)}
                    none="the provider's defaults"
                  />
                </Row>
                <Row name="Variables">
                  <Lines lines={variableLines(version)} none="none" />
                </Row>
                <Row name="Tools">
                  <Lines
                    lines={version.tools.map(
                      (tool) => `${tool.function.name}${tool.function.description ? `: ${tool.function.description}` : ''}`,
                    )}
                    none="none"
                  />
                </Row>
                <Row name="Routing">
                  <Lines
                    lines={routingLines(version.routing, version.cache)}
                    none={`none: every call goes to ${version.provider}/${version.model}`}
                  />
                </Row>
                <Row name="Saved">{formatTime(version.createdAt)}</Row>
              </tbody>
            </table>
          </div>
          <p className="row">
            <Link to={`/logs?${new URLSearchParams({ slug, version: String(number), environment }).toString()}`}>
              Logs of v{number} in {environment}
            </Link>
          </p>
        </div>
      </div>
    </article>
  );
}

/** Each variable a call may send, with the default the version gives it. */
function variableLines(version: Version): string[] {
  const names = [...new Set([...version.declaredVariables, ...Object.keys(version.variables)])];
  return names.map((name) => (name in version.variables ? `${name} = ${JSON.stringify(version.variables[name])}` : `${name} (no default)`));
}

function Row({ name, children }: { name: string; children: ReactNode }) {
  return (
    <tr>
      <th scope="row">{name}</th>
      <td>{children}</td>
    </tr>
  );
}

function Lines({ lines, none }: { lines: string[]; none: string }) {
  if (lines.length === 0) return <span className="muted">{none}</span>;
  return (
    <ul className="plain">
      {lines.map((line, index) => (
        <li key={index} className="pre-wrap">
          {line}
        </li>
      ))}
    </ul>
  );
}
