import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button, Form, Input, Label, TextField } from 'react-aria-components';
import { Link, useNavigate } from 'react-router';

import { api, unwrap } from '../../api/client';
import { EmptyState, ErrorNote, formatTime, Loading } from '../../components/ui';
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
          <table className="table">
            <caption className="sr-only">Datasets</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Version</th>
                <th scope="col">Items</th>
                <th scope="col">Description</th>
                <th scope="col">Last change</th>
              </tr>
            </thead>
            <tbody>
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
            </tbody>
          </table>
          {datasets.hasNextPage ? (
            <Button className="button secondary" onPress={() => void datasets.fetchNextPage()} isDisabled={datasets.isFetchingNextPage}>
              Load more
            </Button>
          ) : null}
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
    <section className="panel" aria-labelledby="new-dataset">
      <h2 id="new-dataset">New dataset</h2>
      <Form
        className="row"
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate();
        }}
      >
        <TextField value={name} onChange={setName} isRequired className="field">
          <Label>Name</Label>
          <Input placeholder="support-questions" />
        </TextField>
        <TextField value={description} onChange={setDescription} className="field grow">
          <Label>Description (optional)</Label>
          <Input placeholder="what the dataset is for" />
        </TextField>
        <Button type="submit" className="button" isDisabled={create.isPending}>
          Create
        </Button>
      </Form>
      <ErrorNote error={create.error} />
    </section>
  );
}
