import { EmptyState, Notice } from '../../components/ui';
import { useCan, useProject, useSession } from '../../session';
import { ProjectKeys } from './key-list';
import { LimitsPanel } from './limits';

/**
 * The keys of the project chosen in the header (the one switcher every screen follows), each with
 * its spend, budgets and last use; and, for the instance's admins, the project's limits. A project
 * session manages its own project's keys when its key holds `keys:manage` (a new key never holds
 * more than the session's own: docs/security.md, "Managing keys").
 */
export function KeysScreen() {
  const session = useSession().data!;
  const scope = useProject();
  const managesKeys = useCan('keys:manage');
  const admin = session.kind === 'admin';
  // Limits are the instance admin's (a workspace admin key is refused, and the panel says so).
  const setsLimits = admin || (session.kind === 'user' && session.instanceAdmin === true);
  return (
    <>
      <h1>{admin ? 'Keys and limits' : 'Keys'}</h1>
      {!scope ? (
        <EmptyState title="Pick a project">
          <p>Choose a workspace and a project at the top: this screen shows that project's keys and limits, and follows the choice.</p>
        </EmptyState>
      ) : (
        <>
          {managesKeys ? (
            <ProjectKeys
              key={`${scope.workspace}/${scope.project}`}
              workspace={scope.workspace}
              project={scope.project}
              access={admin ? undefined : { scopes: session.scopes, environments: session.environments }}
            />
          ) : (
            <Notice>
              This session cannot manage keys (it lacks the <code>keys:manage</code> scope): sign in with a key or a role that has it, or
              with the admin key, to create or revoke keys of {scope.workspace}/{scope.project}.
            </Notice>
          )}
          {setsLimits ? (
            <LimitsPanel key={`limits ${scope.workspace}/${scope.project}`} workspace={scope.workspace} project={scope.project} />
          ) : (
            <p className="muted">Limits are set with the admin key.</p>
          )}
        </>
      )}
    </>
  );
}
