import { lazy, Suspense } from 'react';
import { Button } from 'react-aria-components';
import { Navigate, NavLink, Route, Routes, useLocation, useNavigate } from 'react-router';
import { ErrorNote, Loading } from './components/ui';
import { KeysScreen } from './screens/keys';
import { LogDetailScreen } from './screens/log-detail';
import { LogsScreen } from './screens/logs';
import { PromptDetailScreen } from './screens/prompt-detail';
import { PromptsScreen } from './screens/prompts';
import { SignInScreen } from './screens/sign-in';
import { ThreadScreen, ThreadsScreen } from './screens/threads';
import { useSession, useSignOut } from './session';

// CodeMirror is loaded only by the screens that edit or compare text, keeping the first load small.
const PlaygroundScreen = lazy(() => import('./screens/playground'));
const DiffScreen = lazy(() => import('./screens/diff'));
// uPlot only with the usage screen.
const UsageScreen = lazy(() => import('./screens/usage'));

export function App() {
  const session = useSession();
  const location = useLocation();
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
  if (session.data.kind === 'admin') {
    // The admin key manages workspaces, projects, keys and limits; prompts, logs and threads are a project key's.
    return (
      <div className="shell">
        <Header />
        <nav className="sidebar" aria-label="Console">
          <NavLink to="/keys">Keys and limits</NavLink>
        </nav>
        <main className="content">
          <Routes>
            <Route path="/keys" element={<KeysScreen />} />
            <Route path="*" element={<Navigate to="/keys" replace />} />
          </Routes>
        </main>
      </div>
    );
  }
  return (
    <div className="shell">
      <Header />
      <nav className="sidebar" aria-label="Console">
        <NavLink to="/prompts">Prompts</NavLink>
        <NavLink to="/logs">Logs</NavLink>
        <NavLink to="/threads">Threads</NavLink>
        <NavLink to="/usage">Usage</NavLink>
        <NavLink to="/keys">Keys and providers</NavLink>
      </nav>
      <main className="content">
        <Suspense fallback={<Loading />}>
          <Routes>
            <Route path="/" element={<Navigate to="/prompts" replace />} />
            <Route path="/sign-in" element={<Navigate to="/prompts" replace />} />
            <Route path="/prompts" element={<PromptsScreen />} />
            <Route path="/prompts/:slug" element={<PromptDetailScreen />} />
            <Route path="/prompts/:slug/diff" element={<DiffScreen />} />
            <Route path="/prompts/:slug/playground" element={<PlaygroundScreen />} />
            <Route path="/logs" element={<LogsScreen />} />
            <Route path="/logs/:id" element={<LogDetailScreen />} />
            <Route path="/threads" element={<ThreadsScreen />} />
            <Route path="/threads/:id" element={<ThreadScreen />} />
            <Route path="/usage" element={<UsageScreen />} />
            <Route path="/keys" element={<KeysScreen />} />
            <Route path="*" element={<p>No such page. <NavLink to="/prompts">Go to the prompts</NavLink>.</p>} />
          </Routes>
        </Suspense>
      </main>
    </div>
  );
}

function Header() {
  const session = useSession().data!;
  const signOut = useSignOut();
  const navigate = useNavigate();
  return (
    <header className="topbar">
      <span className="brand">Parley</span>
      <span className="muted">
        {session.kind === 'project' ? `${session.workspace} / ${session.project}` : 'admin'}
      </span>
      <Button className="button secondary" onPress={() => signOut.mutate(undefined, { onSettled: () => navigate('/sign-in') })}>
        Sign out
      </Button>
    </header>
  );
}
