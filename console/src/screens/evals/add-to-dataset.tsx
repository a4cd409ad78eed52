import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Dialog, DialogTrigger, Heading, Modal } from 'react-aria-components';
import { Link } from 'react-router';

import { api, unwrap } from '../../api/client';
import { Button, ButtonLink } from '../../components/button';
import { CheckboxField, Picker } from '../../components/fields';
import { ErrorNote } from '../../components/ui';
import { evalKeys, useDatasets } from './queries';

/** Where the item comes from: a request log, or a thread turn. */
export type ItemSource = { logId: string } | { threadId: string; messageId: string };

/**
 * "Add to dataset" (a log's detail, a thread's turn): picks a dataset and whether the answer becomes
 * the expected output, then `POST /v2/datasets/:name/items/from`; confirms with the new version.
 */
export function AddToDataset({ source, label = 'Add to dataset', small }: { source: ItemSource; label?: string; small?: boolean }) {
  return (
    <DialogTrigger>
      <Button tone="secondary" small={small}>
        {label}
      </Button>
      <Modal className="modal" isDismissable>
        <Dialog className="dialog">{({ close }) => <AddForm source={source} close={close} />}</Dialog>
      </Modal>
    </DialogTrigger>
  );
}

function AddForm({ source, close }: { source: ItemSource; close: () => void }) {
  const datasets = useDatasets();
  const names = datasets.data?.pages.flatMap((page) => page.data.map((d) => d.name)) ?? [];
  const [picked, setPicked] = useState('');
  const [includeAnswer, setIncludeAnswer] = useState(true);
  const name = picked || names[0] || '';
  const client = useQueryClient();
  const add = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/v2/datasets/{name}/items/from', { params: { path: { name } }, body: { ...source, includeAnswer } })),
    onSuccess: () => void client.invalidateQueries({ queryKey: evalKeys.datasets }),
  });
  const what = 'logId' in source ? 'this call' : 'this turn';
  return (
    <>
      <Heading slot="title">Add {what} to a dataset</Heading>
      {add.isSuccess ? (
        <>
          <p role="status" className="success">
            Added to {name}: it is now at version {add.data.version}, with {add.data.itemCount} item{add.data.itemCount === 1 ? '' : 's'}.
          </p>
          <div className="row end">
            <ButtonLink tone="secondary" to={`/datasets/${encodeURIComponent(name)}`} onClick={close}>
              Open {name}
            </ButtonLink>
            <Button onPress={close}>Done</Button>
          </div>
        </>
      ) : (
        <>
          <p className="muted small">
            Its variables and the messages it sent become a new item{includeAnswer ? ', and its answer the expected output' : ''}. The
            dataset gets a new version; earlier versions and the runs over them stay as they were.
          </p>
          {datasets.isPending ? null : names.length === 0 ? (
            <p>
              There is no dataset yet: <Link to="/datasets">create one</Link> first.
            </p>
          ) : (
            <Picker label="Dataset" placeholder="Choose a dataset" items={names} value={name} onChange={setPicked} />
          )}
          <CheckboxField isSelected={includeAnswer} onChange={setIncludeAnswer}>
            Keep the answer as the expected output
          </CheckboxField>
          <ErrorNote error={add.error ?? datasets.error} />
          <div className="row end">
            <Button tone="secondary" onPress={close}>
              Cancel
            </Button>
            <Button onPress={() => add.mutate()} isDisabled={!name || add.isPending}>
              Add to {name || 'dataset'}
            </Button>
          </div>
        </>
      )}
    </>
  );
}
