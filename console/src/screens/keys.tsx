import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Form } from 'react-aria-components';
import { useSearchParams } from 'react-router';

import { api, type Schemas, unwrap } from '../api/client';
import { Button } from '../components/button';
import { TextInput } from '../components/fields';
import { WorkspaceProjectPickers } from '../components/project-pickers';
import { DataTable } from '../components/table';
import { ConfirmButton, EmptyState, ErrorNote, formatTime, Loading, Notice } from '../components/ui';
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
            <Notice>
              This key cannot manage keys (it lacks the <code>keys:manage</code> scope): sign in with a key that has it, or with the admin
              key, to create or revoke keys of {session.workspace}/{session.project}.
            </Notice>
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
      <DataTable label="Providers" columns={['Name', 'Type', 'Base URL', 'Key', 'Updated']}>
        {(providers.data?.data ?? []).map((p) => (
          <tr key={p.name}>
            <td>{p.name}</td>
            <td>{p.type}</td>
            <td>{p.baseUrl ?? '—'}</td>
            <td>{p.apiKeySource === 'stored' ? 'stored (encrypted)' : p.apiKeySource === 'env' ? `from ${p.apiKeyEnv}` : 'none'}</td>
            <td>{formatTime(p.updatedAt)}</td>
          </tr>
        ))}
      </DataTable>
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
  return (
    <>
      <div className="row">
        <WorkspaceProjectPickers
          workspace={workspace}
          project={project}
          onWorkspace={(w) => setParams({ workspace: w })}
          onProject={(p) => setParams({ workspace, project: p })}
        />
      </div>
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
        <TextInput label="New key's name" value={name} onChange={setName} placeholder="ci-deploy" />
        <Button type="submit" isDisabled={create.isPending}>
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
              tone="secondary"
              onPress={() =>
                void navigator.clipboard?.writeText(created.key).then(
                  () => setCopied(true),
                  () => setCopied(false),
                )
              }
            >
              {copied ? 'Copied' : 'Copy'}
            </Button>
            <Button tone="secondary" onPress={() => setCreated(null)}>
              Done
            </Button>
          </p>
        </div>
      ) : null}
      {keys.isPending ? (
        <Loading />
      ) : keys.data && keys.data.data.length > 0 ? (
        <DataTable label={`Keys of ${workspace}/${project}`} columns={['Name', 'Prefix', 'Scopes', 'Created', 'State']}>
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
        </DataTable>
      ) : (
        <EmptyState title="No keys">
          <p>This project has no keys yet: create one above and give it to the application that calls Parley.</p>
        </EmptyState>
      )}
    </section>
  );
}
