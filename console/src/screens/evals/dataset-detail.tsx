import { useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';

import { Picker } from '../../components/fields';
import { DataTable } from '../../components/table';
import { Badge, ErrorNote, formatTime, Loading, LoadMore, Notice } from '../../components/ui';
import { ImportItems } from './dataset-import';
import { ItemRow } from './dataset-item';
import { useDataset, useDatasetItems, useDatasetVersions } from './queries';

/**
 * A dataset: the items of its current version (keyset "Load more"), or of an older version picked
 * in `?version=` (read-only); edit or remove an item, import a file. Every change makes a version.
 */
export function DatasetScreen() {
  const name = useParams().name!;
  const [params, setParams] = useSearchParams();
  const dataset = useDataset(name);
  const versions = useDatasetVersions(name);
  const [change, setChange] = useState('');
  const picked = params.get('version');
  const current = dataset.data?.version;
  const version = picked !== null && Number(picked) !== current ? Number(picked) : undefined;
  const items = useDatasetItems(name, version);

  if (dataset.isPending) return <Loading />;
  if (dataset.error) return <ErrorNote error={dataset.error} />;
  const d = dataset.data;
  const rows = items.data?.pages.flatMap((page) => page.data) ?? [];
  const shown = items.data?.pages[0]?.version ?? version ?? d.version;
  const editable = version === undefined;
  const changed = (text: string) => setChange(text);

  return (
    <>
      <h1>
        {d.name} <Badge>v{d.version}</Badge>
      </h1>
      <p className="muted">
        {d.description ? `${d.description} · ` : ''}
        {d.itemCount} item{d.itemCount === 1 ? '' : 's'} in the current version · last change {formatTime(d.updatedAt)} ·{' '}
        <Link to="/datasets">All datasets</Link>
      </p>
      {change ? (
        <p role="status" className="success">
          {change}
        </p>
      ) : null}
      <div className="row">
        <Picker
          label="Version"
          placeholder="Choose a version"
          items={(versions.data?.data ?? [{ version: d.version, itemCount: d.itemCount, change: '', createdAt: d.updatedAt }]).map((v) => ({
            id: String(v.version),
            label: `v${v.version}${v.version === d.version ? ' (current)' : ''} · ${v.itemCount} items${v.change ? ` · ${v.change}` : ''}`,
          }))}
          value={String(shown)}
          onChange={(key) => setParams(Number(key) === d.version ? {} : { version: key }, { replace: true })}
        />
      </div>
      {!editable ? (
        <Notice>
          Version {version} as it was (read-only): edits and imports change the current version, v{d.version}.{' '}
          <Link to={`/datasets/${encodeURIComponent(name)}`}>Show the current version</Link>
        </Notice>
      ) : null}
      <ErrorNote error={items.error ?? versions.error} />
      <h2>Items of v{shown}</h2>
      {items.isPending ? (
        <Loading />
      ) : rows.length === 0 ? (
        <p className="muted">This version holds no items: import a file below, or add a call from a log or a thread turn.</p>
      ) : (
        <DataTable
          label={`Items of ${d.name} v${shown}`}
          columns={['Input (messages, variables)', 'Expected', 'Since', 'Source', editable && 'Actions']}
        >
          {rows.map((item) => (
            <ItemRow key={`${item.id}@${item.sinceVersion}`} dataset={name} item={item} editable={editable} onChanged={changed} />
          ))}
        </DataTable>
      )}
      <LoadMore pages={items} />
      {editable ? <ImportItems dataset={name} onImported={changed} /> : null}
    </>
  );
}
