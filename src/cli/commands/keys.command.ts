import { Command } from 'commander';
import { WorkspacesService } from '../../workspaces/workspaces.service';
import { output, withAppContext } from '../cli-context';
import { callServer, chooseRoute, RemoteOptions } from '../server-route';
import { remoteOptions } from './apply.command';

interface KeyTarget extends RemoteOptions {
  workspace: string;
  project: string;
  json?: boolean;
}
interface KeyInfo {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  revokedAt: string | null;
}

/** Through a server (--url/--key with the admin key, or the server holding DATA_DIR), else on the database. */
async function run<T>(opts: KeyTarget, method: 'GET' | 'POST' | 'DELETE', suffix: string, direct: (w: WorkspacesService) => Promise<T>, body?: unknown): Promise<T> {
  const route = await chooseRoute(opts);
  const base = `/v2/workspaces/${encodeURIComponent(opts.workspace)}/projects/${encodeURIComponent(opts.project)}/api-keys`;
  if (route.kind === 'server') return (await callServer(route, method, base + suffix, body)) as T;
  return withAppContext((ctx) => direct(ctx.get(WorkspacesService)));
}

const target = (command: Command) =>
  remoteOptions(command.requiredOption('--workspace <slug>', 'workspace slug').requiredOption('--project <slug>', 'project slug').option('--json', 'print JSON'), 'manage keys', 'PARLEY_ADMIN_KEY', 'the admin key');

export function keysCommand(): Command {
  const keys = new Command('keys').description('manage project API keys (with --url, --key is the admin key)');
  target(keys.command('create').description('create a project API key (printed once; only its hash is stored)'))
    .option('--name <name>', 'a label for the key', 'default')
    .action(async (opts: KeyTarget & { name: string }) => {
      const key = await run(opts, 'POST', '', (w) => w.createApiKey(opts.workspace, opts.project, opts.name), { name: opts.name });
      const summary = { id: key.id, key: key.key, workspace: key.workspace, project: key.project };
      output(!!opts.json, summary, () => `Created key ${key.id} for ${key.workspace}/${key.project}:\n${key.key}`);
    });
  target(keys.command('list').description("list a project's keys (never the secrets)")).action(async (opts: KeyTarget) => {
    // The server answers {object: 'list', data}; the service returns the array.
    const answer: unknown = await run<unknown>(opts, 'GET', '', (w) => w.listApiKeys(opts.workspace, opts.project));
    const list = (Array.isArray(answer) ? answer : (answer as { data: KeyInfo[] }).data) as KeyInfo[];
    output(!!opts.json, list, () =>
      list.length === 0
        ? `No keys in ${opts.workspace}/${opts.project}.`
        : list.map((k) => `${k.id}  ${k.prefix}…  ${k.name}  created ${k.createdAt}${k.revokedAt ? `  REVOKED ${k.revokedAt}` : ''}`).join('\n'),
    );
  });
  target(keys.command('revoke').description('revoke a project key by id (see keys list)'))
    .argument('<id>', 'the key id')
    .action(async (id: string, opts: KeyTarget) => {
      const revoked = await run(opts, 'DELETE', `/${encodeURIComponent(id)}`, (w) => w.revokeApiKey(opts.workspace, opts.project, id));
      output(!!opts.json, revoked, () => `Revoked key ${id} of ${opts.workspace}/${opts.project}.`);
    });
  return keys;
}
