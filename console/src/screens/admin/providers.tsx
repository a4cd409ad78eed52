import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

import { api, type Schemas, unwrap } from '../../api/client';
import { Button } from '../../components/button';
import { DataTable } from '../../components/table';
import { ConfirmButton, EmptyState, ErrorNote, formatTime, Loading } from '../../components/ui';
import { useCan, useProject } from '../../session';
import { AddProvider, RotateKey } from './provider-forms';

type Provider = Schemas['ProviderCredentialDto'];
type TestResult = Schemas['ProviderTestResultDto'];

const QUERY_KEY = ['providers'];

/** Where a provider's key comes from, never the key. */
export const keySourceOf = (p: Provider) =>
  p.apiKeySource === 'stored' ? 'stored (encrypted)' : p.apiKeySource === 'env' ? `server variable ${p.apiKeyEnv}` : 'none';

/**
 * The chosen project's providers (docs/console.md, "Providers"; docs/providers.md): name, type,
 * base URL and where the key comes from, never the key. With `providers:write`: add one (its key
 * stored encrypted), test it (one small request under the outbound policy: a failing provider says
 * why), rotate its key, delete it (refused while a deployment uses it, with the API's reason).
 */
export function ProvidersScreen() {
  const scope = useProject()!;
  const canWrite = useCan('providers:write');
  const client = useQueryClient();
  const providers = useQuery({ queryKey: QUERY_KEY, queryFn: () => unwrap(api.GET('/v2/provider-credentials')) });
  const remove = useMutation({
    mutationFn: (name: string) => unwrap(api.DELETE('/v2/provider-credentials/{name}', { params: { path: { name } } })),
    onSuccess: () => void client.invalidateQueries({ queryKey: QUERY_KEY }),
  });
  const refresh = () => void client.invalidateQueries({ queryKey: QUERY_KEY });
  const list = providers.data?.data ?? [];
  return (
    <>
      <h1>Providers</h1>
      <p className="muted">
        The providers of {scope.workspace}/{scope.project}: what its versions name as their provider. Keys are never shown.
      </p>
      {canWrite ? <AddProvider onAdded={refresh} /> : null}
      <ErrorNote error={providers.error ?? remove.error} />
      {providers.isPending ? (
        <Loading />
      ) : list.length === 0 ? (
        <EmptyState title="No providers">
          <p>Add one above, or declare it in parley.yaml (docs/providers.md).</p>
        </EmptyState>
      ) : (
        <DataTable
          label={`Providers of ${scope.project}`}
          className="providers"
          columns={['Name', 'Type', 'Base URL', 'Key', 'Updated', 'Connection', canWrite ? <span className="sr-only">Change</span> : null]}
        >
          {list.map((p) => (
            <ProviderRow key={p.name} provider={p} canWrite={canWrite} onChanged={refresh} onDelete={() => remove.mutate(p.name)} />
          ))}
        </DataTable>
      )}
    </>
  );
}

function ProviderRow(props: { provider: Provider; canWrite: boolean; onChanged: () => void; onDelete: () => void }) {
  const p = props.provider;
  const [result, setResult] = useState<TestResult | null>(null);
  const test = useMutation({
    mutationFn: () => unwrap(api.POST('/v2/provider-credentials/{name}/test', { params: { path: { name: p.name } } })),
    onMutate: () => setResult(null),
    onSuccess: setResult,
  });
  return (
    <tr>
      <th scope="row">{p.name}</th>
      <td>{p.type}</td>
      <td className="break">{p.baseUrl ?? (p.builtIn ? '—' : 'the public API')}</td>
      <td>{keySourceOf(p)}</td>
      <td>{p.builtIn ? 'built in' : formatTime(p.updatedAt)}</td>
      <td>
        {props.canWrite ? (
          <Button tone="secondary" small onPress={() => test.mutate()} isDisabled={test.isPending} aria-label={`Test ${p.name}`}>
            {test.isPending ? 'Testing…' : 'Test'}
          </Button>
        ) : null}{' '}
        <span role="status" aria-label={`Test of ${p.name}`}>
          {result ? <TestOutcome result={result} /> : null}
        </span>
        <ErrorNote error={test.error} />
      </td>
      {props.canWrite ? (
        <td className="nowrap">
          {p.builtIn ? null : (
            <>
              <RotateKey provider={p} onRotated={props.onChanged} />{' '}
              <ConfirmButton
                label={`Delete ${p.name}`}
                title={`Delete the provider ${p.name}?`}
                confirmLabel="Delete"
                danger
                onConfirm={props.onDelete}
              >
                <p>Versions that name it can no longer be called. The API refuses while a current deployment uses it, and says which.</p>
              </ConfirmButton>
            </>
          )}
        </td>
      ) : null}
    </tr>
  );
}

/** "OK (182 ms): Connected to …" or "Failed, 401 (95 ms): …": the server's sentence, never a key. */
function TestOutcome({ result }: { result: TestResult }) {
  const head = result.ok ? 'OK' : `Failed${result.status === null ? '' : `, ${result.status}`}`;
  return (
    <span className={result.ok ? 'success' : 'error-text'}>
      {head} ({result.latencyMs} ms): {result.message}
    </span>
  );
}
