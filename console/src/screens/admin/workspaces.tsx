import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Form } from 'react-aria-components';
import { Link, useSearchParams } from 'react-router';

import { api, type Schemas, unwrap } from '../../api/client';
import { Button } from '../../components/button';
import { TextInput } from '../../components/fields';
import { DataTable } from '../../components/table';
import { EmptyState, ErrorNote, formatTime, Loading } from '../../components/ui';
import { useProject, useSwitchProject } from '../../session';
import { DeleteProject } from './delete-project';

/**
 * Workspaces and their projects (docs/console.md, "Workspaces and projects"), for the admin key and
 * instance admins: create a workspace (the instance's admin only) or a project, work in a project
 * (the header's switcher follows), delete a project after typing its name. The workspace shown is
 * in the URL (`?workspace=`), by default the one the header has chosen.
 */
export function WorkspacesScreen() {
  const scope = useProject();
  const client = useQueryClient();
  const [params, setParams] = useSearchParams();
  const workspaces = useQuery({ queryKey: ['workspaces'], queryFn: () => unwrap(api.GET('/v2/workspaces')) });
  const list = workspaces.data?.data ?? [];
  const shown = params.get('workspace') ?? scope?.workspace ?? list[0]?.slug ?? '';
  const create = useMutation({
    mutationFn: (body: { slug: string; name?: string }) => unwrap(api.POST('/v2/workspaces', { body })),
    onSuccess: (workspace) => {
      void client.invalidateQueries({ queryKey: ['workspaces'] });
      setParams({ workspace: workspace.slug });
    },
  });
  return (
    <>
      <h1>Workspaces and projects</h1>
      <SlugForm
        label="New workspace"
        placeholder="acme"
        submit="Create workspace"
        pending={create.isPending}
        onSubmit={create.mutateAsync}
      />
      <ErrorNote error={workspaces.error ?? create.error} />
      {workspaces.isPending ? (
        <Loading />
      ) : (
        <DataTable label="Workspaces" columns={['Workspace', 'Name', 'Created']}>
          {list.map((w) => (
            <tr key={w.id} aria-current={w.slug === shown ? 'true' : undefined}>
              <th scope="row">
                {w.slug === shown ? <strong>{w.slug}</strong> : <Link to={`?workspace=${encodeURIComponent(w.slug)}`}>{w.slug}</Link>}
              </th>
              <td>{w.name}</td>
              <td>{formatTime(w.createdAt)}</td>
            </tr>
          ))}
        </DataTable>
      )}
      {shown ? <Projects key={shown} workspace={shown} /> : null}
    </>
  );
}

function Projects({ workspace }: { workspace: string }) {
  const scope = useProject();
  const switchTo = useSwitchProject();
  const client = useQueryClient();
  const queryKey = ['projects', workspace];
  const projects = useQuery({
    queryKey,
    queryFn: () => unwrap(api.GET('/v2/workspaces/{workspace}/projects', { params: { path: { workspace } } })),
  });
  const [params, setParams] = useSearchParams();
  const [done, setDone] = useState<string | null>(null);
  // In the URL: leaving the deleted project re-renders the console's routes, and this notice must outlive that.
  const gone = params.get('deleted');
  const create = useMutation({
    mutationFn: (body: { slug: string; name?: string }) =>
      unwrap(api.POST('/v2/workspaces/{workspace}/projects', { params: { path: { workspace } }, body })),
    onSuccess: (project) => {
      setDone(`Created ${workspace}/${project.slug}.`);
      if (gone) setParams({ workspace });
      void client.invalidateQueries({ queryKey });
    },
  });
  const deleted = (project: Schemas['ProjectDeletedDto']) => {
    setDone(null);
    setParams({ workspace, deleted: `${project.workspace}/${project.slug}`, rows: String(project.deletedRows) });
    // The header leaves a project that is no more; every cached answer of it is dropped.
    if (scope?.workspace === project.workspace && scope.project === project.slug) switchTo(null);
    void client.invalidateQueries({ queryKey });
  };
  const list = projects.data?.data ?? [];
  return (
    <section aria-labelledby="projects">
      <h2 id="projects">Projects of {workspace}</h2>
      <SlugForm
        label="New project"
        placeholder="support"
        submit="Create project"
        pending={create.isPending}
        onSubmit={create.mutateAsync}
      />
      {done || gone ? (
        <p role="status" className="success">
          {done ?? `Deleted ${gone} and its ${params.get('rows') ?? 'all'} rows.`}
        </p>
      ) : null}
      <ErrorNote error={projects.error ?? create.error} />
      {projects.isPending ? (
        <Loading />
      ) : list.length === 0 ? (
        <EmptyState title="No projects">
          <p>Create the workspace's first project above, then work in it with the switcher at the top.</p>
        </EmptyState>
      ) : (
        <DataTable label={`Projects of ${workspace}`} columns={['Project', 'Name', 'Created', <span className="sr-only">Actions</span>]}>
          {list.map((p) => {
            const current = scope?.workspace === workspace && scope.project === p.slug;
            return (
              <tr key={p.id}>
                <th scope="row">{p.slug}</th>
                <td>{p.name}</td>
                <td>{formatTime(p.createdAt)}</td>
                <td className="nowrap">
                  {current ? (
                    <span className="muted">the project you work in</span>
                  ) : (
                    <Button
                      tone="secondary"
                      aria-label={`Work in it: ${workspace}/${p.slug}`}
                      onPress={() => switchTo({ workspace, project: p.slug })}
                    >
                      Work in it
                    </Button>
                  )}{' '}
                  <DeleteProject workspace={workspace} project={p.slug} onDeleted={deleted} />
                </td>
              </tr>
            );
          })}
        </DataTable>
      )}
    </section>
  );
}

/** A slug and an optional display name: a new workspace's, or a new project's. */
function SlugForm(props: {
  label: string;
  placeholder: string;
  submit: string;
  pending: boolean;
  /** Resolves once created: the fields are cleared then, and kept when it fails (the error is shown above). */
  onSubmit: (body: { slug: string; name?: string }) => Promise<unknown>;
}) {
  const [slug, setSlug] = useState('');
  const [name, setName] = useState('');
  return (
    <Form
      className="row"
      aria-label={props.label}
      onSubmit={(event) => {
        event.preventDefault();
        props.onSubmit({ slug: slug.trim(), ...(name.trim() ? { name: name.trim() } : {}) }).then(
          () => {
            setSlug('');
            setName('');
          },
          () => undefined,
        );
      }}
    >
      <TextInput label={`${props.label} (slug)`} value={slug} onChange={setSlug} isRequired placeholder={props.placeholder} />
      <TextInput label="Display name" value={name} onChange={setName} placeholder="optional" />
      <Button type="submit" isDisabled={props.pending || slug.trim() === ''}>
        {props.submit}
      </Button>
    </Form>
  );
}
