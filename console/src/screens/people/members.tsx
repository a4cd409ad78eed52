import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Form } from 'react-aria-components';

import { api, type Schemas, unwrap } from '../../api/client';
import { Button } from '../../components/button';
import { Choices, Picker, TextInput } from '../../components/fields';
import { DataTable } from '../../components/table';
import { ConfirmButton, EmptyState, ErrorNote, formatTime, Loading, Notice } from '../../components/ui';
import { useCan, useProject, useSession } from '../../session';
import { GroupRoles } from './group-roles';
import { type Role, ROLES } from './roles';

type Member = Schemas['MemberDto'];

/** The workspace (project undefined) or one of its projects: where the screen gives and lists roles. */
interface Place {
  workspace: string;
  project?: string;
}

/** The members API for a place: the workspace's routes, or the project's. */
function membersApi(place: Place) {
  const path = { workspace: place.workspace, project: place.project ?? '' };
  return {
    list: () =>
      place.project
        ? unwrap(api.GET('/v2/workspaces/{workspace}/projects/{project}/members', { params: { path } }))
        : unwrap(api.GET('/v2/workspaces/{workspace}/members', { params: { path } })),
    put: (user: string, role: Role) =>
      place.project
        ? unwrap(
            api.PUT('/v2/workspaces/{workspace}/projects/{project}/members/{user}', {
              params: { path: { ...path, user } },
              body: { role },
            }),
          )
        : unwrap(api.PUT('/v2/workspaces/{workspace}/members/{user}', { params: { path: { ...path, user } }, body: { role } })),
    remove: (user: string) =>
      place.project
        ? unwrap(api.DELETE('/v2/workspaces/{workspace}/projects/{project}/members/{user}', { params: { path: { ...path, user } } }))
        : unwrap(api.DELETE('/v2/workspaces/{workspace}/members/{user}', { params: { path: { ...path, user } } })),
  };
}

/**
 * Members (docs/console.md, "Members"; docs/security.md, "Roles"): who holds which role in the
 * current workspace or project, given by e-mail (also before the person's first sign-in), changed
 * and removed here; and the roles the identity provider's groups give. The workspace's lists need
 * an admin session (the admin key, a workspace admin); a project session with `members:manage`
 * manages its own project's members.
 */
export function MembersScreen() {
  const session = useSession().data!;
  const scope = useProject()!;
  const canManage = useCan('members:manage');
  const workspaceWide = session.kind !== 'project';
  const [level, setLevel] = useState<'workspace' | 'project'>(workspaceWide ? 'workspace' : 'project');
  const place: Place = level === 'workspace' ? { workspace: scope.workspace } : { workspace: scope.workspace, project: scope.project };
  if (!canManage) {
    return (
      <>
        <h1>Members</h1>
        <Notice>
          Managing members needs the <code>members:manage</code> scope: sign in with the admin key, as a workspace admin, or with a key that
          holds it.
        </Notice>
      </>
    );
  }
  return (
    <>
      <h1>Members</h1>
      {workspaceWide ? (
        <Choices
          label="Roles in"
          items={[
            { id: 'workspace', label: `the workspace ${scope.workspace} (every project)` },
            { id: 'project', label: `the project ${scope.workspace}/${scope.project} only` },
          ]}
          value={level}
          onChange={setLevel}
        />
      ) : null}
      <MemberList key={`${place.workspace}/${place.project ?? ''}`} place={place} />
      {workspaceWide ? <GroupRoles workspace={scope.workspace} project={scope.project} /> : null}
    </>
  );
}

/** The role a member holds directly here: what the row's picker shows and changes. */
const directRole = (member: Member, place: Place): Role | '' =>
  member.grants.find((g) => g.source === 'direct' && g.project === (place.project ?? null))?.role ?? '';

function MemberList({ place }: { place: Place }) {
  const client = useQueryClient();
  const queryKey = ['members', place.workspace, place.project ?? null];
  const calls = membersApi(place);
  const members = useQuery({ queryKey, queryFn: calls.list });
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const refresh = () => void client.invalidateQueries({ queryKey });
  const add = useMutation({
    mutationFn: () => calls.put(email.trim(), role),
    onSuccess: () => {
      setEmail('');
      refresh();
    },
  });
  const change = useMutation({ mutationFn: ({ user, role }: { user: string; role: Role }) => calls.put(user, role), onSuccess: refresh });
  const remove = useMutation({ mutationFn: (user: string) => calls.remove(user), onSuccess: refresh });
  const where = place.project ? `${place.workspace}/${place.project}` : place.workspace;
  return (
    <section aria-labelledby="members">
      <h2 id="members">Members of {where}</h2>
      <Form
        className="row"
        aria-label="Add a member"
        onSubmit={(event) => {
          event.preventDefault();
          add.mutate();
        }}
      >
        <TextInput label="E-mail address" value={email} onChange={setEmail} isRequired type="email" placeholder="ana@example.com" />
        <Picker label="Role" items={ROLES} value={role} onChange={(id) => setRole(id as Role)} />
        <Button type="submit" isDisabled={add.isPending || email.trim() === ''}>
          Add member
        </Button>
      </Form>
      <p className="muted">
        Someone who has not signed in yet gets the role from their first sign-in with this address. The strongest of a person’s roles wins.
      </p>
      <ErrorNote error={members.error ?? add.error ?? change.error ?? remove.error} />
      {members.isPending ? (
        <Loading />
      ) : members.data && members.data.data.length > 0 ? (
        <DataTable
          label={`Members of ${where}`}
          columns={[
            'Person',
            'Role here',
            place.project ? 'Workspace role' : 'Project roles',
            'Through groups',
            'Last sign-in',
            <span className="sr-only">Remove</span>,
          ]}
        >
          {members.data.data.map((member) => {
            const direct = directRole(member, place);
            const groups = member.grants.filter((g) => g.source === 'group');
            return (
              <tr key={member.id}>
                <td>
                  {member.user.email}
                  {member.user.name ? <span className="muted"> ({member.user.name})</span> : null}
                  {member.active ? null : <span className="muted"> (suspended)</span>}
                </td>
                <td>
                  <Picker
                    label={`Role of ${member.user.email}`}
                    labelHidden
                    placeholder="none of its own"
                    items={ROLES.map((r) => r.id)}
                    value={direct}
                    onChange={(id) => change.mutate({ user: member.id, role: id as Role })}
                  />
                </td>
                <td>
                  {place.project
                    ? (member.role ?? '—')
                    : member.projects.length > 0
                      ? member.projects.map((p) => `${p.project}: ${p.role}`).join(', ')
                      : '—'}
                </td>
                <td>
                  {groups.length > 0 ? groups.map((g) => `${g.group}: ${g.role}${g.project ? ` in ${g.project}` : ''}`).join(', ') : '—'}
                </td>
                <td>{member.lastSignInAt ? formatTime(member.lastSignInAt) : 'not yet'}</td>
                <td>
                  {direct || (!place.project && member.source === 'direct') ? (
                    <ConfirmButton
                      label={`Remove ${member.user.email}`}
                      title={`Remove ${member.user.email} from ${where}?`}
                      confirmLabel="Remove"
                      danger
                      onConfirm={() => remove.mutate(member.id)}
                    >
                      <p>
                        {place.project
                          ? 'Their role in this project ends now (a workspace-wide role stays).'
                          : 'Every role of theirs in this workspace and its projects ends now (roles through groups stay while the group does).'}{' '}
                        Left with no role anywhere, they are signed out everywhere at once.
                      </p>
                    </ConfirmButton>
                  ) : null}
                </td>
              </tr>
            );
          })}
        </DataTable>
      ) : (
        <EmptyState title="No members yet">
          <p>Add someone by their e-mail address above, or give a group of your identity provider a role below.</p>
        </EmptyState>
      )}
    </section>
  );
}
