import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Dialog, DialogTrigger, Form, Heading, Modal } from 'react-aria-components';
import { Link } from 'react-router';

import { api, type Schemas, unwrap } from '../../api/client';
import { Button } from '../../components/button';
import { contentText } from '../../components/chat';
import { Choices, TextInput } from '../../components/fields';
import { ConfirmButton, ErrorNote } from '../../components/ui';
import { parseField } from '../playground/playground-draft';
import { expectedText } from './format';
import { type DatasetChange, type DatasetItem, evalKeys } from './queries';

type ExpectedKind = 'none' | 'text' | 'json';
const isObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One item of a dataset version as a table row; on the current version it can be edited and removed. */
export function ItemRow({
  dataset,
  item,
  editable,
  onChanged,
}: {
  dataset: string;
  item: DatasetItem;
  editable: boolean;
  onChanged: (change: string) => void;
}) {
  const client = useQueryClient();
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/v2/datasets/{name}/items/{itemId}', { params: { path: { name: dataset, itemId: item.id } } })),
    onSuccess: (change: DatasetChange) => {
      void client.invalidateQueries({ queryKey: evalKeys.datasets });
      onChanged(`Removed the item: the dataset is now at version ${change.version} (${change.itemCount} items).`);
    },
  });
  const source = item.source as { logId?: string; threadId?: string; import?: string } | null;
  return (
    <tr>
      <td>
        <ul className="plain">
          {(item.messages as unknown as { role: string; content: unknown }[]).map((m, i) => (
            <li key={i}>
              <span className="muted">{m.role}:</span> {contentText(m.content)}
            </li>
          ))}
        </ul>
        {Object.keys(item.variables).length ? (
          <code className="small">
            {Object.entries(item.variables)
              .map(([k, v]) => `${k}=${v}`)
              .join(', ')}
          </code>
        ) : null}
      </td>
      <td className="pre-wrap">{expectedText(item.expected) || <span className="muted">none</span>}</td>
      <td>v{item.sinceVersion}</td>
      <td>
        {source?.logId ? <Link to={`/logs/${source.logId}`}>log</Link> : null}
        {source?.threadId ? (
          <>
            {source.logId ? ' · ' : null}
            <Link to={`/threads/${source.threadId}`}>thread</Link>
          </>
        ) : null}
        {source?.import ? `import (${source.import})` : null}
        {!source ? <span className="muted">API</span> : null}
      </td>
      {editable ? (
        <td>
          <div className="row">
            <EditItem dataset={dataset} item={item} onChanged={onChanged} />
            <ConfirmButton label="Remove" title="Remove this item?" confirmLabel="Remove" danger onConfirm={() => remove.mutate()}>
              <p>The next version of {dataset} will not hold it; earlier versions (and the runs over them) keep it.</p>
            </ConfirmButton>
          </div>
          <ErrorNote error={remove.error} />
        </td>
      ) : null}
    </tr>
  );
}

/** Edits an item's variables, messages (both as JSON) and expected output (text, JSON or none): a new version of the dataset. */
function EditItem({ dataset, item, onChanged }: { dataset: string; item: DatasetItem; onChanged: (change: string) => void }) {
  const initialKind: ExpectedKind = item.expected === null ? 'none' : typeof item.expected === 'string' ? 'text' : 'json';
  const [variables, setVariables] = useState(JSON.stringify(item.variables, null, 2));
  const [messages, setMessages] = useState(JSON.stringify(item.messages, null, 2));
  const [kind, setKind] = useState<ExpectedKind>(initialKind);
  const [expected, setExpected] = useState(initialKind === 'json' ? JSON.stringify(item.expected, null, 2) : expectedText(item.expected));
  const client = useQueryClient();
  const save = useMutation({
    mutationFn: async () => {
      const body: Schemas['ItemPatchBodyDto'] = {
        variables: parseField<Record<string, string>>(variables, 'Variables', isObject),
        messages: parseField<NonNullable<Schemas['ItemPatchBodyDto']['messages']>>(messages, 'Messages', Array.isArray),
        expected: kind === 'none' ? null : kind === 'text' ? expected : parseField<unknown>(expected, 'Expected', () => true),
      };
      return unwrap(api.PATCH('/v2/datasets/{name}/items/{itemId}', { params: { path: { name: dataset, itemId: item.id } }, body }));
    },
    onSuccess: (saved) => {
      void client.invalidateQueries({ queryKey: evalKeys.datasets });
      onChanged(`Saved the item: the dataset is now at version ${saved.sinceVersion}.`);
    },
  });
  return (
    <DialogTrigger>
      <Button tone="secondary">Edit</Button>
      <Modal className="modal" isDismissable>
        <Dialog className="dialog wide">
          {({ close }) => (
            <Form
              onSubmit={(event) => {
                event.preventDefault();
                save.mutate(undefined, { onSuccess: close });
              }}
            >
              <Heading slot="title">Edit the item</Heading>
              <TextInput label="Variables (JSON object)" value={variables} onChange={setVariables} rows={4} json />
              <TextInput label="Messages (JSON array)" value={messages} onChange={setMessages} rows={8} json />
              <Choices
                label="Expected output"
                items={[
                  { id: 'text', label: 'text' },
                  { id: 'json', label: 'JSON' },
                  { id: 'none', label: 'none' },
                ]}
                value={kind}
                onChange={setKind}
              />
              {kind !== 'none' ? (
                <TextInput label="Expected" labelHidden value={expected} onChange={setExpected} rows={4} json={kind === 'json'} />
              ) : null}
              <ErrorNote error={save.error} />
              <div className="row end">
                <Button tone="secondary" onPress={close}>
                  Cancel
                </Button>
                <Button type="submit" isDisabled={save.isPending}>
                  Save as a new version
                </Button>
              </div>
            </Form>
          )}
        </Dialog>
      </Modal>
    </DialogTrigger>
  );
}
