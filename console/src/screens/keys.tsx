import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button, Form, Input, Label, TextField } from 'react-aria-components';
import { useSearchParams } from 'react-router';

import { api, type Schemas, unwrap } from '../api/client';
import { Picker } from '../components/fields';
import { ConfirmButton, EmptyState, ErrorNote, formatTime, Loading } from '../components/ui';
import { useSession } from '../session';
import { LimitsPanel } from './limits';

/**
 * The admin key picks a workspace and project (kept in the URL) and manages their keys and limits.
 * A project session manages its own project's keys when its key holds `keys:manage` (never more
 * than it holds itself: docs/security.md, "Managing keys"), and sees the project's providers;
 * limits stay the admin key's.
 */
export function KeysScreen() {
  const session = useSession().data!;
  const managesKeys = session.scopes === null || session.scopes.includes('keys:manage');
  return (
    <>
      <h1>{session.kind === 'admin' ? 'Keys and limits' : 'Keys and providers'}</h1>
      {session.kind === 'admin' ? (
        <AdminKeys />
      ) : (
        <>
          {managesKeys && session.workspace && session.project ? (
            <ProjectKeys
              workspace={session.workspace}
              project={session.project}
              access={{ scopes: session.scopes, environments: session.environments }}
            />
          ) : (
            <p className="notice" role="note">
              This key cannot manage keys (it lacks the <code>keys:manage</code> scope): sign in with a key that has it, or with the admin
              key, to create or revoke keys of {session.workspace}/{session.project}.
            </p>
          )}
          <p className="muted">Limits are set with the admin key.</p>
          <Providers />
        </>
      )}
    </>
  );
}

function Providers() {
  const providers = useQuery({ queryKey: ['providers'], queryFn: () => unwrap(api.GET('/v2/provider-credentials')) });
  if (providers.isPending) return <Loading />;
  return (
    <section aria-labelledby="providers">
      <h2 id="providers">Providers</h2>
      <ErrorNote error={providers.error} />
      <table className="table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Type</th>
            <th scope="col">Base URL</th>
            <th scope="col">Key</th>
            <th scope="col">Updated</th>
          </tr>
        </thead>
        <tbody>
          {(providers.data?.data ?? []).map((p) => (
            <tr key={p.name}>
              <td>{p.name}</td>
              <td>{p.type}</td>
              <td>{p.baseUrl ?? '—'}</td>
              <td>{p.apiKeySource === 'stored' ? 'stored (encrypted)' : p.apiKeySource === 'env' ? `from ${p.apiKeyEnv}` : 'none'}</td>
              <td>{formatTime(p.updatedAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted">
        Secrets are never shown. Add a provider with <code>parley apply</code> or <code>POST /v2/provider-credentials</code>{' '}
        (docs/providers.md).
      </p>
    </section>
  );
}

function AdminKeys() {
  const [params, setParams] = useSearchParams();
  const workspace = params.get('workspace') ?? '';
  const project = params.get('project') ?? '';
  const workspaces = useQuery({ queryKey: ['workspaces'], queryFn: () => unwrap(api.GET('/v2/workspaces')) });
  const projects = useQuery({
    queryKey: ['projects', workspace],
    queryFn: () => unwrap(api.GET('/v2/workspaces/{workspace}/projects', { params: { path: { workspace } } })),
    enabled: workspace !== '',
  });
  return (
    <>
      <div className="row">
        <Picker
          label="Workspace"
          placeholder="Choose a workspace"
          items={workspaces.data?.data.map((w) => w.slug) ?? []}
          value={workspace}
          onChange={(w) => setParams({ workspace: w })}
        />
        {workspace ? (
          <Picker
            label="Project"
            placeholder="Choose a project"
            items={projects.data?.data.map((p) => p.slug) ?? []}
            value={project}
            onChange={(p) => setParams({ workspace, project: p })}
          />
        ) : null}
      </div>
      <ErrorNote error={workspaces.error ?? projects.error} />
      {workspace && project ? (
        <>
          <ProjectKeys workspace={workspace} project={project} />
          <LimitsPanel workspace={workspace} project={project} />
        </>
      ) : (
        <p className="muted">Pick a workspace and a project to manage their keys and limits.</p>
      )}
    </>
  );
}

/** A key made by a project session gets the session key's own access (a key never gives more than it holds); the admin key's, every scope. */
type Access = { scopes: Schemas['ConsoleSessionDto']['scopes']; environments: string[] | null };

function ProjectKeys({ workspace, project, access }: { workspace: string; project: string; access?: Access }) {
  const path = { workspace, project };
  const client = useQueryClient();
  const queryKey = ['keys', workspace, project];
  const keys = useQuery({
    queryKey,
    queryFn: () => unwrap(api.GET('/v2/workspaces/{workspace}/projects/{project}/api-keys', { params: { path } })),
  });
  const [name, setName] = useState('');
  const [created, setCreated] = useState<Schemas['CreatedApiKeyDto'] | null>(null);
  const [copied, setCopied] = useState(false);
  const create = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/v2/workspaces/{workspace}/projects/{project}/api-keys', {
          params: { path },
          body: {
            ...(name ? { name } : {}),
            ...(access?.scopes ? { scopes: access.scopes } : {}),
            ...(access?.environments ? { environments: access.environments } : {}),
          },
        }),
      ),
    onSuccess: (key) => {
      setCreated(key);
      setCopied(false);
      setName('');
      void client.invalidateQueries({ queryKey });
    },
  });
  const revoke = useMutation({
    mutationFn: (keyId: string) =>
      unwrap(api.DELETE('/v2/workspaces/{workspace}/projects/{project}/api-keys/{keyId}', { params: { path: { ...path, keyId } } })),
    onSuccess: () => void client.invalidateQueries({ queryKey }),
  });
  return (
    <section aria-labelledby="keys">
      <h2 id="keys">
        Keys of {workspace}/{project}
      </h2>
      {access?.scopes || access?.environments ? (
        <p className="muted">
          A new key gets this key's access: {access.scopes ? access.scopes.join(', ') : 'every scope'}
          {access.environments ? `, invoking in ${access.environments.join(', ')}` : ''}.
        </p>
      ) : null}
      <Form
        className="row"
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate();
        }}
      >
        <TextField value={name} onChange={setName} className="field">
          <Label>New key's name</Label>
          <Input placeholder="ci-deploy" />
        </TextField>
        <Button type="submit" className="button" isDisabled={create.isPending}>
          Create a key
        </Button>
      </Form>
      <ErrorNote error={create.error ?? revoke.error} />
      {created ? (
        <div className="notice" role="status">
          <p>
            The new key <strong>{created.name}</strong>, shown only now (Parley keeps only its hash):
          </p>
          <p className="row">
            <code className="secret" aria-label="New key">
              {created.key}
            </code>
            <Button
              className="button secondary"
              onPress={() =>
                void navigator.clipboard?.writeText(created.key).then(
                  () => setCopied(true),
                  () => setCopied(false),
                )
              }
            >
              {copied ? 'Copied' : 'Copy'}
            </Button>
            <Button className="button secondary" onPress={() => setCreated(null)}>
              Done
            </Button>
          </p>
        </div>
      ) : null}
      {keys.isPending ? (
        <Loading />
      ) : keys.data && keys.data.data.length > 0 ? (
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Prefix</th>
              <th scope="col">Scopes</th>
              <th scope="col">Created</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {keys.data.data.map((key) => (
              <tr key={key.id}>
                <td>{key.name}</td>
                <td>
                  <code>{key.prefix}…</code>
                </td>
                <td>
                  {key.scopes ? key.scopes.join(', ') : 'all'}
                  {key.environments ? ` (invokes in ${key.environments.join(', ')})` : ''}
                </td>
                <td>{formatTime(key.createdAt)}</td>
                <td>
                  {key.revokedAt ? (
                    `revoked ${formatTime(key.revokedAt)}`
                  ) : (
                    <ConfirmButton
                      label={`Revoke ${key.name}`}
                      title={`Revoke the key ${key.name}?`}
                      confirmLabel="Revoke"
                      danger
                      onConfirm={() => revoke.mutate(key.id)}
                    >
                      <p>Every call made with it is refused (401) from now on, on every instance. This cannot be undone.</p>
                    </ConfirmButton>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <EmptyState title="No keys">
          <p>This project has no keys yet: create one above and give it to the application that calls Parley.</p>
        </EmptyState>
      )}
    </section>
  );
}
