import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Form } from 'react-aria-components';
import { Link, useNavigate } from 'react-router';

import { api, unwrap } from '../../api/client';
import { Button } from '../../components/button';
import { TextInput } from '../../components/fields';
import { DataTable } from '../../components/table';
import { Card, EmptyState, ErrorNote, formatTime, Loading, LoadMore } from '../../components/ui';
import { evalKeys, useDatasets } from './queries';

/** Datasets: name, current version, item count, last change; create one. */
export function DatasetsScreen() {
  const datasets = useDatasets();
  const list = datasets.data?.pages.flatMap((page) => page.data) ?? [];
  return (
    <>
      <h1>Datasets</h1>
      <p className="muted">
        The inputs an experiment runs a prompt on, with what each answer should be. Every change makes a new version; a run names the
        version it ran on.
      </p>
      <ErrorNote error={datasets.error} />
      {datasets.isPending ? (
        <Loading />
      ) : list.length > 0 ? (
        <>
          <DataTable label="Datasets" columns={['Name', 'Version', 'Items', 'Description', 'Last change']}>
            {list.map((dataset) => (
              <tr key={dataset.id}>
                <td>
                  <Link to={`/datasets/${encodeURIComponent(dataset.name)}`}>{dataset.name}</Link>
                </td>
                <td>v{dataset.version}</td>
                <td>{dataset.itemCount}</td>
                <td>{dataset.description || <span className="muted">—</span>}</td>
                <td>{formatTime(dataset.updatedAt)}</td>
              </tr>
            ))}
          </DataTable>
          <LoadMore pages={datasets} />
        </>
      ) : (
        <EmptyState title="No datasets yet">
          <p>
            Create one below and import a JSONL or CSV file, or add calls to it from a log ("Add to dataset") or a thread turn. The CLI does
            the same: <code>parley dataset import</code>.
          </p>
        </EmptyState>
      )}
      <NewDataset />
    </>
  );
}

function NewDataset() {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const client = useQueryClient();
  const navigate = useNavigate();
  const create = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/v2/datasets', { body: { name, ...(description.trim() ? { description: description.trim() } : {}) } })),
    onSuccess: (dataset) => {
      void client.invalidateQueries({ queryKey: evalKeys.datasets });
      navigate(`/datasets/${encodeURIComponent(dataset.name)}`);
    },
  });
  return (
    <Card title="New dataset">
      <Form
        className="row"
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate();
        }}
      >
        <TextInput label="Name" value={name} onChange={setName} isRequired placeholder="support-questions" />
        <TextInput
          label="Description (optional)"
          value={description}
          onChange={setDescription}
          className="grow"
          placeholder="what the dataset is for"
        />
        <Button type="submit" isDisabled={create.isPending}>
          Create
        </Button>
      </Form>
      <ErrorNote error={create.error} />
    </Card>
  );
}
