import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Form } from 'react-aria-components';

import { api, type Schemas, unwrap } from '../../api/client';
import { Button } from '../../components/button';
import { Choices, Picker, TextInput } from '../../components/fields';
import { DataTable } from '../../components/table';
import { ConfirmButton, ErrorNote, Loading } from '../../components/ui';
import { type Role, ROLES } from './roles';

/** The roles the identity provider's groups give in the workspace or one of its projects. */
export function GroupRoles({ workspace, project }: { workspace: string; project: string }) {
  const client = useQueryClient();
  const queryKey = ['group-roles', workspace];
  const path = { workspace };
  const roles = useQuery({ queryKey, queryFn: () => unwrap(api.GET('/v2/workspaces/{workspace}/group-roles', { params: { path } })) });
  const [group, setGroup] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [where, setWhere] = useState<'workspace' | 'project'>('project');
  const refresh = () => void client.invalidateQueries({ queryKey });
  const give = useMutation({
    mutationFn: () =>
      unwrap(
        api.PUT('/v2/workspaces/{workspace}/group-roles/{group}', {
          params: { path: { workspace, group: group.trim() } },
          body: { role, ...(where === 'project' ? { project } : {}) },
        }),
      ),
    onSuccess: () => {
      setGroup('');
      refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (row: Schemas['GroupRoleDto']) =>
      unwrap(
        api.DELETE('/v2/workspaces/{workspace}/group-roles/{group}', {
          params: { path: { workspace, group: row.group }, query: row.project ? { project: row.project } : {} },
        }),
      ),
    onSuccess: refresh,
  });
  return (
    <section aria-labelledby="group-roles">
      <h2 id="group-roles">Group roles in {workspace}</h2>
      <p className="muted">
        Everyone in a group of your identity provider (its groups claim at sign-in, or a SCIM group) holds the group’s role. Roles a
        project’s <code>parley.yaml</code> gives (<code>access:</code>) are best changed there.
      </p>
      <Form
        className="row"
        aria-label="Give a group a role"
        onSubmit={(event) => {
          event.preventDefault();
          give.mutate();
        }}
      >
        <TextInput label="Group" value={group} onChange={setGroup} isRequired placeholder="support-leads" />
        <Picker label="Group’s role" items={ROLES} value={role} onChange={(id) => setRole(id as Role)} />
        <Choices
          label="In"
          items={[
            { id: 'project', label: `${project} only` },
            { id: 'workspace', label: 'every project' },
          ]}
          value={where}
          onChange={setWhere}
        />
        <Button type="submit" isDisabled={give.isPending || group.trim() === ''}>
          Give the role
        </Button>
      </Form>
      <ErrorNote error={roles.error ?? give.error ?? remove.error} />
      {roles.isPending ? (
        <Loading />
      ) : roles.data && roles.data.data.length > 0 ? (
        <DataTable label="Group roles" columns={['Group', 'Where', 'Role', 'Given by', <span className="sr-only">Remove</span>]}>
          {roles.data.data.map((row) => (
            <tr key={row.id}>
              <td>{row.group}</td>
              <td>{row.project ?? 'every project'}</td>
              <td>{row.role}</td>
              <td>{row.managedBy === 'apply' ? 'parley.yaml' : 'the API or the console'}</td>
              <td>
                <ConfirmButton
                  label={`Remove the role of ${row.group}${row.project ? ` in ${row.project}` : ''}`}
                  title={`Remove the role of the group ${row.group}?`}
                  confirmLabel="Remove"
                  danger
                  onConfirm={() => remove.mutate(row)}
                >
                  <p>Its members lose the role from their next request.</p>
                </ConfirmButton>
              </td>
            </tr>
          ))}
        </DataTable>
      ) : (
        <p className="muted">No group has a role in this workspace.</p>
      )}
    </section>
  );
}
