import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Form } from 'react-aria-components';

import { api, type Schemas, unwrap } from '../../api/client';
import { Button } from '../../components/button';
import { TextInput } from '../../components/fields';
import { DataTable } from '../../components/table';
import { ConfirmButton, EmptyState, ErrorNote, formatTime, Loading } from '../../components/ui';

/** A key made by a project session gets the session key's own access (a key never gives more than it holds); the admin key's, every scope. */
type Access = { scopes: Schemas['ConsoleSessionDto']['scopes']; environments: string[] | null };
type Key = Schemas['ApiKeyListItemDto'];

/** USD as the list gives it (exact decimal text), shown to the cent or, below a cent, to four places. */
export function usd(text: string): string {
  const value = Number(text);
  if (value === 0) return '$0';
  if (value < 0.0001) return '< $0.0001';
  return `$${value < 0.01 ? value.toFixed(4) : value.toFixed(2)}`;
}

/** The spend of a period, with its budget when one applies: "$1.20 of $5". */
const spendOf = (spent: string, budget: string | null) => (budget === null ? usd(spent) : `${usd(spent)} of ${usd(budget)}`);

/** The hour of the last use (the rollups' granularity): "2026-12-03 14:00 UTC". */
const hourOf = (time: string | null) => (time ? `${formatTime(time).slice(0, 13)}:00 UTC` : 'no calls yet');

/** A project's keys: create one (its secret shown once), each key's spend, budgets and last use, revoke. */
export function ProjectKeys({ workspace, project, access }: { workspace: string; project: string; access?: Access }) {
  const path = { workspace, project };
  const client = useQueryClient();
  const queryKey = ['keys', workspace, project];
  const keys = useQuery({
    queryKey,
    queryFn: () => unwrap(api.GET('/v2/workspaces/{workspace}/projects/{project}/api-keys', { params: { path } })),
  });
  const [created, setCreated] = useState<Schemas['CreatedApiKeyDto'] | null>(null);
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
      <NewKey
        path={path}
        access={access}
        onCreated={(key) => {
          setCreated(key);
          void client.invalidateQueries({ queryKey });
        }}
      />
      <ErrorNote error={keys.error ?? revoke.error} />
      {created ? <CreatedKey created={created} onDone={() => setCreated(null)} /> : null}
      {keys.isPending ? (
        <Loading />
      ) : keys.data && keys.data.data.length > 0 ? (
        <>
          <DataTable
            label={`Keys of ${workspace}/${project}`}
            columns={['Name', 'Prefix', 'Scopes', 'Spent today', 'Spent this month', 'Last used (hour)', 'Created', 'State']}
          >
            {keys.data.data.map((key) => (
              <KeyRow key={key.id} keyRow={key} onRevoke={() => revoke.mutate(key.id)} />
            ))}
          </DataTable>
          <p className="muted small">
            Spend (UTC day and month) and last use come from the usage rollups: the last use is the hour of the key's latest call, and a
            call shows up once its log is written. A budget shown is the key's own, else the project's default for keys.
          </p>
        </>
      ) : (
        <EmptyState title="No keys">
          <p>This project has no keys yet: create one above and give it to the application that calls Parley.</p>
        </EmptyState>
      )}
    </section>
  );
}

function KeyRow({ keyRow: key, onRevoke }: { keyRow: Key; onRevoke: () => void }) {
  return (
    <tr>
      <td>{key.name}</td>
      <td>
        <code>{key.prefix}…</code>
      </td>
      <td>
        {key.scopes ? key.scopes.join(', ') : 'all'}
        {key.environments ? ` (invokes in ${key.environments.join(', ')})` : ''}
      </td>
      <td className="nowrap">{spendOf(key.spendTodayUsd, key.budgetUsdPerDay)}</td>
      <td className="nowrap">{spendOf(key.spendMonthUsd, key.budgetUsdPerMonth)}</td>
      <td>{hourOf(key.lastUsedAt)}</td>
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
            onConfirm={onRevoke}
          >
            <p>Every call made with it is refused (401) from now on, on every instance. This cannot be undone.</p>
          </ConfirmButton>
        )}
      </td>
    </tr>
  );
}

function NewKey({
  path,
  access,
  onCreated,
}: {
  path: { workspace: string; project: string };
  access?: Access;
  onCreated: (key: Schemas['CreatedApiKeyDto']) => void;
}) {
  const [name, setName] = useState('');
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
      setName('');
      onCreated(key);
    },
  });
  return (
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
      <ErrorNote error={create.error} />
    </Form>
  );
}

/** The new key's secret, shown once, with a copy button. */
function CreatedKey({ created, onDone }: { created: Schemas['CreatedApiKeyDto']; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
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
        <Button tone="secondary" onPress={onDone}>
          Done
        </Button>
      </p>
    </div>
  );
}
