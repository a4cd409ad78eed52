import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Dialog, DialogTrigger, Form, Heading, Modal } from 'react-aria-components';

import { api, type Schemas, unwrap } from '../../api/client';
import { Button } from '../../components/button';
import { TextInput } from '../../components/fields';
import { ErrorNote } from '../../components/ui';

/**
 * Deletes a project with all its data once its `<workspace>/<project>` is typed in full
 * (`DELETE /v2/workspaces/{workspace}/projects/{project}` with `{"confirm": ...}`; docs/security.md,
 * "Deleting a project"). The button stays disabled until the text matches; the server checks it again.
 */
export function DeleteProject({
  workspace,
  project,
  onDeleted,
}: {
  workspace: string;
  project: string;
  onDeleted: (deleted: Schemas['ProjectDeletedDto']) => void;
}) {
  const expected = `${workspace}/${project}`;
  const [typed, setTyped] = useState('');
  const remove = useMutation({
    mutationFn: () =>
      unwrap(
        api.DELETE('/v2/workspaces/{workspace}/projects/{project}', {
          params: { path: { workspace, project } },
          body: { confirm: typed },
        }),
      ),
  });
  return (
    <DialogTrigger
      onOpenChange={() => {
        setTyped('');
        remove.reset();
      }}
    >
      <Button tone="secondary" aria-label={`Delete project ${expected}`}>
        Delete project
      </Button>
      <Modal className="modal" isDismissable>
        <Dialog className="dialog" role="alertdialog">
          {({ close }) => (
            <Form
              onSubmit={(event) => {
                event.preventDefault();
                remove.mutate(undefined, {
                  onSuccess: (deleted) => {
                    close();
                    onDeleted(deleted);
                  },
                });
              }}
            >
              <Heading slot="title">Delete the project {expected}?</Heading>
              <p>
                Everything in it is deleted: prompts, versions and deployments, logs, threads, usage, datasets and experiments, providers,
                its members' roles and its keys, which stop working at once. This cannot be undone; the instance's audit trail keeps a
                record.
              </p>
              <TextInput label={`Type ${expected} to confirm`} value={typed} onChange={setTyped} isRequired autoFocus autoComplete="off" />
              <ErrorNote error={remove.error} />
              <div className="row end">
                <Button tone="secondary" onPress={close}>
                  Cancel
                </Button>
                <Button type="submit" tone="danger" isDisabled={typed !== expected || remove.isPending}>
                  Delete {expected}
                </Button>
              </div>
            </Form>
          )}
        </Dialog>
      </Modal>
    </DialogTrigger>
  );
}
