import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Form } from 'react-aria-components';
import { Link } from 'react-router';

import { api, type Schemas, unwrap } from '../../api/client';
import { Button } from '../../components/button';
import { TextInput } from '../../components/fields';
import { DataTable } from '../../components/table';
import { ConfirmButton, EmptyState, ErrorNote, formatTime, Loading } from '../../components/ui';
import { useCan } from '../../session';

type Environment = Schemas['EnvironmentDto'];

/** Why an environment cannot be deleted now, as the server would refuse it; null when it can. */
function deleteBlocker(environment: Environment, running: string[]): string | null {
  if (running.length > 0) return `Runs ${running.join(', ')}: undeploy ${running.length === 1 ? 'it' : 'them'} first.`;
  if (environment.protection) return 'Protected: a project admin removes its protection first.';
  return null;
}

/**
 * The project's environments (docs/console.md, "Archiving and undeploying"): each one's protection, what runs
 * there now (linked to the prompt, where it is undeployed), when it was made; create one, and delete
 * one that runs nothing (confirmed; disabled, saying why, while it runs something or is
 * protected). Deleting takes its deployment history with it; the audit trail keeps it.
 */
export function EnvironmentsScreen() {
  const canWrite = useCan('registry:write');
  const client = useQueryClient();
  const environments = useQuery({ queryKey: ['environments'], queryFn: () => unwrap(api.GET('/v2/environments')) });
  const deployments = useQuery({ queryKey: ['deployments'], queryFn: () => unwrap(api.GET('/v2/deployments', { params: { query: {} } })) });
  const [deleted, setDeleted] = useState<string | null>(null);
  const remove = useMutation({
    mutationFn: (slug: string) => unwrap(api.DELETE('/v2/environments/{slug}', { params: { path: { slug } } })),
    onMutate: () => setDeleted(null),
    onSuccess: (answer) => {
      setDeleted(answer.slug);
      void client.invalidateQueries({ queryKey: ['environments'] });
      void client.invalidateQueries({ queryKey: ['deployments'] });
    },
  });

  if (environments.isPending || deployments.isPending) return <Loading />;
  if (environments.error || deployments.error) return <ErrorNote error={environments.error ?? deployments.error} />;
  const runningIn = (slug: string) => deployments.data.data.filter((d) => d.environment === slug).map((d) => d.slug);
  const list = environments.data.data;

  return (
    <>
      <h1>Environments</h1>
      <p className="muted">
        Where prompts are deployed. An environment that runs nothing can be deleted: its deployment history goes with it (the audit trail
        keeps every deployment made there), and its name can be used again.
      </p>
      {deleted ? (
        <p role="status" className="success">
          Deleted {deleted}.
        </p>
      ) : null}
      <ErrorNote error={remove.error} />
      {list.length === 0 ? (
        <EmptyState title="No environments">
          <p>Create one below to deploy prompts to it.</p>
        </EmptyState>
      ) : (
        <DataTable label="Environments" columns={['Environment', 'Protection', 'Runs', 'Created', 'Delete']}>
          {list.map((environment) => {
            const running = runningIn(environment.slug);
            const blocker = deleteBlocker(environment, running);
            return (
              <tr key={environment.id}>
                <td>{environment.slug}</td>
                <td>
                  {environment.protection ? (
                    [
                      environment.protection.requireApproval ? 'approval required' : null,
                      environment.protection.barKeys ? 'keys barred' : null,
                    ]
                      .filter(Boolean)
                      .join(', ')
                  ) : (
                    <span className="muted">none</span>
                  )}
                </td>
                <td>
                  {running.length === 0 ? (
                    <span className="muted">nothing</span>
                  ) : (
                    running.map((slug) => (
                      <Link key={slug} className="badge" to={`/prompts/${encodeURIComponent(slug)}`}>
                        {slug}
                      </Link>
                    ))
                  )}
                </td>
                <td>{formatTime(environment.createdAt)}</td>
                <td>
                  {canWrite ? (
                    <>
                      <ConfirmButton
                        label={`Delete ${environment.slug}`}
                        title={`Delete ${environment.slug}?`}
                        confirmLabel={`Delete ${environment.slug}`}
                        danger
                        isDisabled={blocker !== null || remove.isPending}
                        onConfirm={() => remove.mutate(environment.slug)}
                      >
                        <p>
                          {environment.slug} and its deployment history are deleted; calls to it answer 404. The audit trail keeps every
                          deployment made there.
                        </p>
                      </ConfirmButton>
                      {blocker ? <p className="muted small">{blocker}</p> : null}
                    </>
                  ) : (
                    <span className="muted">—</span>
                  )}
                </td>
              </tr>
            );
          })}
        </DataTable>
      )}
      {canWrite ? <NewEnvironment /> : null}
    </>
  );
}

function NewEnvironment() {
  const [slug, setSlug] = useState('');
  const client = useQueryClient();
  const create = useMutation({
    mutationFn: () => unwrap(api.POST('/v2/environments', { body: { slug } })),
    onSuccess: () => {
      setSlug('');
      void client.invalidateQueries({ queryKey: ['environments'] });
    },
  });
  return (
    <section className="panel" aria-labelledby="new-environment">
      <h2 id="new-environment">New environment</h2>
      <Form
        className="row"
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate();
        }}
      >
        <TextInput label="Name" value={slug} onChange={setSlug} isRequired placeholder="qa" />
        <Button type="submit" isDisabled={create.isPending}>
          Create
        </Button>
      </Form>
      <ErrorNote error={create.error} />
    </section>
  );
}
