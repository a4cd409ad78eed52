import { useEffect } from 'react';

import { Button } from '../../components/button';
import { Picker } from '../../components/fields';
import { EmptyState } from '../../components/ui';
import { type Session, useProject, useSwitchProject } from '../../session';

type Person = NonNullable<Session> & { kind: 'user' };
const idOf = (p: { workspace: string; project: string }) => `${p.workspace}/${p.project}`;

/**
 * A signed-in person's project switcher (docs/console.md, "Signing in"): the projects they hold a
 * role in, with the role; the choice is sent as X-Parley-Project, as an admin session's is. A
 * person with exactly one project starts in it.
 */
export function PersonProjectSwitcher({ session }: { session: Person }) {
  const scope = useProject();
  const switchTo = useSwitchProject();
  const projects = session.projects ?? [];
  const only = projects.length === 1 ? projects[0] : null;
  useEffect(() => {
    if (!scope && only) switchTo({ workspace: only.workspace, project: only.project });
  }, [scope, only?.workspace, only?.project]);
  return (
    <div className="row switcher" role="group" aria-label="Project switcher">
      <Picker
        label="Project"
        placeholder={projects.length === 0 ? 'No project yet' : 'Choose a project'}
        items={projects.map((p) => ({ id: idOf(p), label: `${p.workspace} / ${p.project} (${p.role})` }))}
        value={scope ? idOf(scope) : ''}
        onChange={(id) => {
          const [workspace, project] = id.split('/');
          switchTo({ workspace, project });
        }}
      />
    </div>
  );
}

/** Shown until a person picks a project: theirs to choose from, as buttons. */
export function ChooseProject({ session }: { session: Person }) {
  const switchTo = useSwitchProject();
  const projects = session.projects ?? [];
  if (session.instanceAdmin) {
    return (
      <EmptyState title="Pick a project">
        <p>You are an instance admin: choose a workspace and a project at the top to see its prompts, logs, threads and usage.</p>
      </EmptyState>
    );
  }
  return (
    <EmptyState title="Pick a project">
      {projects.length === 0 ? (
        <p>You have no role in a project yet. Ask an administrator of your workspace to add you.</p>
      ) : (
        <>
          <p>Choose the project to work in; your role there decides what you can change.</p>
          <ul className="plain">
            {projects.map((p) => (
              <li key={idOf(p)}>
                <Button tone="secondary" onPress={() => switchTo({ workspace: p.workspace, project: p.project })}>
                  {p.workspace} / {p.project}
                </Button>{' '}
                <span className="muted">{p.role}</span>
              </li>
            ))}
          </ul>
        </>
      )}
    </EmptyState>
  );
}
