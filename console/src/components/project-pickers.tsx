import { useQuery } from '@tanstack/react-query';

import { api, unwrap } from '../api/client';
import { Picker } from './fields';
import { ErrorNote } from './ui';

/**
 * A workspace picker, then (once one is chosen) a picker of its projects: the header's project
 * switcher of an admin session and the admin key's keys screen.
 */
export function WorkspaceProjectPickers({
  workspace,
  project,
  onWorkspace,
  onProject,
}: {
  workspace: string;
  project: string;
  onWorkspace: (workspace: string) => void;
  onProject: (project: string) => void;
}) {
  const workspaces = useQuery({ queryKey: ['workspaces'], queryFn: () => unwrap(api.GET('/v2/workspaces')) });
  const projects = useQuery({
    queryKey: ['projects', workspace],
    queryFn: () => unwrap(api.GET('/v2/workspaces/{workspace}/projects', { params: { path: { workspace } } })),
    enabled: workspace !== '',
  });
  return (
    <>
      <Picker
        label="Workspace"
        placeholder="Choose a workspace"
        items={workspaces.data?.data.map((w) => w.slug) ?? []}
        value={workspace}
        onChange={onWorkspace}
      />
      {workspace ? (
        <Picker
          label="Project"
          placeholder="Choose a project"
          items={projects.data?.data.map((p) => p.slug) ?? []}
          value={project}
          onChange={onProject}
        />
      ) : null}
      <ErrorNote error={workspaces.error ?? projects.error} />
    </>
  );
}
