import { lazy, Suspense, useEffect, useState } from 'react';
import { Navigate, NavLink, Route, Routes, useLocation, useNavigate } from 'react-router';

import { Button } from './components/button';
import { WorkspaceProjectPickers } from './components/project-pickers';
import { ThemeToggle } from './components/theme';
import { EmptyState, ErrorNote, Loading } from './components/ui';
import { KeysScreen } from './screens/admin/keys';
import { LogDetailScreen } from './screens/logs/log-detail';
import { LogsScreen } from './screens/logs/logs';
import { ThreadScreen, ThreadsScreen } from './screens/logs/threads';
import { ChooseProject, PersonProjectSwitcher } from './screens/people/person-projects';
import { PromptDetailScreen } from './screens/prompts/prompt-detail';
import { PromptsScreen } from './screens/prompts/prompts';
import { SignInScreen } from './screens/sign-in';
import { useCan, useProject, useSession, useSignOut, useSwitchProject } from './session';

// CodeMirror is loaded only by the screens that edit or compare text, keeping the first load small.
const PlaygroundScreen = lazy(() => import('./screens/playground/playground'));
const DiffScreen = lazy(() => import('./screens/prompts/diff'));
// uPlot only with the usage screen.
const UsageScreen = lazy(() => import('./screens/usage'));
// The evaluation screens (docs/console.md, "Evaluations") are loaded when first opened.
const DatasetsScreen = lazy(() => import('./screens/evals/datasets').then((m) => ({ default: m.DatasetsScreen })));
const DatasetScreen = lazy(() => import('./screens/evals/dataset-detail').then((m) => ({ default: m.DatasetScreen })));
const GradersScreen = lazy(() => import('./screens/evals/graders').then((m) => ({ default: m.GradersScreen })));
const RunsScreen = lazy(() => import('./screens/evals/runs').then((m) => ({ default: m.RunsScreen })));
const RunScreen = lazy(() => import('./screens/evals/run').then((m) => ({ default: m.RunScreen })));
// Deploys waiting for a second person (docs/console.md, "Approvals"), loaded when first opened.
const ApprovalsScreen = lazy(() => import('./screens/people/approvals').then((m) => ({ default: m.ApprovalsScreen })));
// A prompt's split and per-arm results in one environment (docs/console.md, "Splits"), loaded when first opened.
const SplitScreen = lazy(() => import('./screens/split/split-screen').then((m) => ({ default: m.SplitScreen })));
const CompareScreen = lazy(() => import('./screens/evals/compare').then((m) => ({ default: m.CompareScreen })));
// The audit trails (docs/console.md, "Audit"), loaded when first opened.
const AuditScreen = lazy(() => import('./screens/people/audit').then((m) => ({ default: m.AuditScreen })));
// The environments, with Delete (docs/console.md, "Archiving and undeploying"), loaded when first opened.
const EnvironmentsScreen = lazy(() => import('./screens/admin/environments').then((m) => ({ default: m.EnvironmentsScreen })));
// Members and group roles (docs/console.md, "Members"), loaded when first opened.
const MembersScreen = lazy(() => import('./screens/people/members').then((m) => ({ default: m.MembersScreen })));
// Administration (docs/console.md, "Providers", "Workspaces and projects"), loaded when first opened.
const ProvidersScreen = lazy(() => import('./screens/admin/providers').then((m) => ({ default: m.ProvidersScreen })));
const WorkspacesScreen = lazy(() => import('./screens/admin/workspaces').then((m) => ({ default: m.WorkspacesScreen })));

export function App() {
  const session = useSession();
  const scope = useProject();
  const location = useLocation();
  const canAudit = useCan('audit:read');
  // On a narrow screen the sidebar is a menu (docs/console.md, "Small screens"), closed again by each navigation.
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => setMenuOpen(false), [location.pathname]);
  if (session.isPending) return <Loading />;
  if (session.error) return <ErrorNote error={session.error} />;
  if (!session.data) {
    return (
      <Routes>
        <Route path="/sign-in" element={<SignInScreen />} />
        <Route path="*" element={<Navigate to={`/sign-in?next=${encodeURIComponent(location.pathname + location.search)}`} replace />} />
      </Routes>
    );
  }
  const admin = session.data.kind === 'admin';
  // A person signed in with OpenID Connect picks a project as the admin key does (docs/console.md, "Signing in").
  const person = session.data.kind === 'user' ? { ...session.data, kind: 'user' as const } : null;
  const picking = (admin || person !== null) && !scope;
  // The admin key and instance admins manage workspaces and projects, with or without a project chosen.
  const administers = admin || person?.instanceAdmin === true;
  return (
    <div className="shell">
      <SkipLink />
      <Header menuOpen={menuOpen} onMenu={() => setMenuOpen(!menuOpen)} />
      <nav id="console-nav" className={menuOpen ? 'sidebar open' : 'sidebar'} aria-label="Console">
        {!picking ? (
          <>
            <NavLink to="/prompts">Prompts</NavLink>
            <NavLink to="/environments">Environments</NavLink>
            <NavLink to="/logs">Logs</NavLink>
            <NavLink to="/threads">Threads</NavLink>
            <NavLink to="/datasets">Datasets</NavLink>
            <NavLink to="/evals/runs">Experiments</NavLink>
            <NavLink to="/graders">Graders</NavLink>
            <NavLink to="/usage">Usage</NavLink>
            <NavLink to="/members">Members</NavLink>
            <NavLink to="/approvals">Approvals</NavLink>
            <NavLink to="/providers">Providers</NavLink>
          </>
        ) : null}
        {person && !scope ? null : <NavLink to="/keys">{admin ? 'Keys and limits' : 'Keys'}</NavLink>}
        {administers ? <NavLink to="/workspaces">Workspaces</NavLink> : null}
        {canAudit ? <NavLink to="/audit">Audit</NavLink> : null}
      </nav>
      <main id="main" className="content" tabIndex={-1}>
        <Suspense fallback={<Loading />}>
          {person && !scope ? (
            <Routes>
              {administers ? <Route path="/workspaces" element={<WorkspacesScreen />} /> : null}
              <Route path="*" element={<ChooseProject session={person} />} />
            </Routes>
          ) : admin && !scope ? (
            // The admin key manages workspaces and projects as itself; the project screens need a project picked above.
            <Routes>
              <Route path="/keys" element={<KeysScreen />} />
              <Route path="/workspaces" element={<WorkspacesScreen />} />
              <Route path="/audit" element={<AuditScreen />} />
              <Route path="*" element={<PickAProject />} />
            </Routes>
          ) : (
            <Routes>
              <Route path="/" element={<Navigate to="/prompts" replace />} />
              <Route path="/sign-in" element={<Navigate to={admin ? '/keys' : '/prompts'} replace />} />
              <Route path="/prompts" element={<PromptsScreen />} />
              <Route path="/prompts/:slug" element={<PromptDetailScreen />} />
              <Route path="/prompts/:slug/diff" element={<DiffScreen />} />
              <Route path="/prompts/:slug/playground" element={<PlaygroundScreen />} />
              <Route path="/prompts/:slug/split/:environment" element={<SplitScreen />} />
              <Route path="/environments" element={<EnvironmentsScreen />} />
              <Route path="/logs" element={<LogsScreen />} />
              <Route path="/logs/:id" element={<LogDetailScreen />} />
              <Route path="/threads" element={<ThreadsScreen />} />
              <Route path="/threads/:id" element={<ThreadScreen />} />
              <Route path="/datasets" element={<DatasetsScreen />} />
              <Route path="/datasets/:name" element={<DatasetScreen />} />
              <Route path="/graders" element={<GradersScreen />} />
              <Route path="/evals/runs" element={<RunsScreen />} />
              <Route path="/evals/runs/:id" element={<RunScreen />} />
              <Route path="/evals/runs/:id/compare/:baseId" element={<CompareScreen />} />
              <Route path="/usage" element={<UsageScreen />} />
              <Route path="/members" element={<MembersScreen />} />
              <Route path="/approvals" element={<ApprovalsScreen />} />
              <Route path="/keys" element={<KeysScreen />} />
              <Route path="/providers" element={<ProvidersScreen />} />
              {administers ? <Route path="/workspaces" element={<WorkspacesScreen />} /> : null}
              <Route path="/audit" element={<AuditScreen />} />
              <Route
                path="*"
                element={
                  <>
                    <h1>No such page</h1>
                    <EmptyState title="Nothing here">
                      <p>
                        The address matches no screen of the console. <NavLink to="/prompts">Go to the prompts</NavLink>.
                      </p>
                    </EmptyState>
                  </>
                }
              />
            </Routes>
          )}
        </Suspense>
      </main>
    </div>
  );
}

function PickAProject() {
  const location = useLocation();
  if (location.pathname === '/' || location.pathname === '/sign-in') return <Navigate to="/keys" replace />;
  return (
    <EmptyState title="Pick a project">
      <p>Signed in with the admin key: choose a workspace and a project at the top to see its prompts, logs, threads and usage.</p>
    </EmptyState>
  );
}

/**
 * An admin session's workspace and project: the one choice every screen follows (prompts, logs,
 * keys, providers...). A switch made elsewhere (the workspaces screen's "Work in it") shows here too.
 */
function ProjectSwitcher() {
  const scope = useProject();
  const switchTo = useSwitchProject();
  const [workspace, setWorkspace] = useState(scope?.workspace ?? '');
  // Follow a switch made elsewhere (the Workspaces screen's "Work in it"): one switcher for every screen.
  useEffect(() => {
    if (scope) setWorkspace(scope.workspace);
  }, [scope?.workspace, scope?.project]);
  return (
    <div className="row switcher" role="group" aria-label="Project switcher">
      <WorkspaceProjectPickers
        workspace={workspace}
        project={scope?.workspace === workspace ? scope.project : ''}
        onWorkspace={setWorkspace}
        onProject={(project) => switchTo({ workspace, project })}
      />
    </div>
  );
}

/** The first stop of the Tab key: past the header and sidebar to the screen itself. */
function SkipLink() {
  return (
    <a
      className="skip-link"
      href="#main"
      onClick={(event) => {
        event.preventDefault();
        document.getElementById('main')?.focus();
      }}
    >
      Skip to main content
    </a>
  );
}

function Header({ menuOpen, onMenu }: { menuOpen: boolean; onMenu: () => void }) {
  const session = useSession().data!;
  const signOut = useSignOut();
  const navigate = useNavigate();
  return (
    <header className="topbar">
      <span className="brand">Parley</span>
      <Button tone="secondary" small className="menu-button" aria-expanded={menuOpen} aria-controls="console-nav" onPress={onMenu}>
        Menu
      </Button>
      {session.kind === 'user' ? (
        <>
          <span className="muted">{session.user?.email}</span>
          {session.instanceAdmin ? <ProjectSwitcher /> : <PersonProjectSwitcher session={{ ...session, kind: 'user' }} />}
        </>
      ) : session.kind === 'project' ? (
        <span className="muted">
          {session.workspace} / {session.project}
        </span>
      ) : (
        <>
          <span className="muted">admin</span>
          <ProjectSwitcher />
        </>
      )}
      <ThemeToggle />
      <Button tone="secondary" className="sign-out" onPress={() => signOut.mutate(undefined, { onSettled: () => navigate('/sign-in') })}>
        Sign out
      </Button>
    </header>
  );
}
