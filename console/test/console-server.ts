import { freshDatabase } from '../../test/support/fresh-database';
import { SpawnedServer, spawnServer } from '../../test/support/spawn-server';

/** The secret key the browser tests' servers store provider keys under. */
export const CONSOLE_TESTS_SECRET_KEY = 'console-tests-secret-key-0123456789abcdef';

export interface ConsoleServer {
  server: SpawnedServer;
  /** The keys its first start printed. */
  projectKey: string;
  adminKey: string;
  /** Ends the server and drops its database. */
  stop: () => Promise<void>;
}

/**
 * The built server as a process, on a database of its own on PostgreSQL (docs/testing.md, "The
 * console matrix"): the walkthrough's first start seeds DATABASE_URL's and prints the keys, and a
 * second first start on it would print none.
 */
export async function startConsoleServer(env: Record<string, string | undefined> = {}): Promise<ConsoleServer> {
  const database = process.env.DATABASE_URL ? await freshDatabase() : undefined;
  const server = await spawnServer({
    DATABASE_URL: database && 'DATABASE_URL' in database.env ? database.env.DATABASE_URL : undefined,
    LOG_LEVEL: 'warn',
    ...env,
  });
  const printed = (name: string) => new RegExp(`${name}=(\\S+)`).exec(server.output())?.[1] ?? '';
  return {
    server,
    projectKey: printed('PARLEY_KEY'),
    adminKey: printed('PARLEY_ADMIN_KEY'),
    stop: async () => {
      server.child.kill('SIGTERM');
      await server.exited;
      await database?.drop();
    },
  };
}
