import { Command } from 'commander';

import { isScope, PRESET_NAMES, Scope, ScopePreset, SCOPES } from '../../auth/scopes';
import { isSlugLike } from '../../common/validation';
import { ApiKeyAccessDto, CreateApiKeyDto } from '../../workspaces/dto/api-key.dto';
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
  scopes: string[] | null;
  environments: string[] | null;
  name: string;
  prefix: string;
  createdAt: string;
  revokedAt: string | null;
}

interface AccessOptions {
  preset?: string;
  scopes?: string;
  environments?: string;
}

const list = (value: string) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');

/** The options as the admin API's body, checked here too: on the database no server validates them. */
function accessBody(opts: AccessOptions): ApiKeyAccessDto {
  const body: ApiKeyAccessDto = {};
  if (opts.preset !== undefined) {
    if (!(PRESET_NAMES as string[]).includes(opts.preset))
      throw new Error(`Unknown preset "${opts.preset}": use one of ${PRESET_NAMES.join(', ')}`);
    body.preset = opts.preset as ScopePreset;
  }
  if (opts.scopes !== undefined) {
    const unknown = list(opts.scopes).filter((scope) => !isScope(scope));
    if (unknown.length > 0) throw new Error(`Unknown scope ${unknown.join(', ')}: use ${SCOPES.join(', ')}`);
    body.scopes = list(opts.scopes) as Scope[];
  }
  if (opts.environments !== undefined) {
    const environments = list(opts.environments);
    if (environments.length === 0 || !environments.every(isSlugLike))
      throw new Error('--environments takes a comma-separated list of environment slugs');
    body.environments = environments;
  }
  return body;
}

const describeAccess = (k: { scopes: string[] | null; environments: string[] | null }) =>
  `${k.scopes === null ? 'all scopes' : `scopes: ${k.scopes.join(' ') || '(none)'}`}${k.environments ? `; environments: ${k.environments.join(' ')}` : ''}`;

/** Through a server (--url/--key with the admin key, or the server holding DATA_DIR), else on the database. */
async function run<T>(
  opts: KeyTarget,
  method: 'GET' | 'POST' | 'DELETE',
  suffix: string,
  direct: (w: WorkspacesService) => Promise<T>,
  body?: unknown,
): Promise<T> {
  const route = await chooseRoute(opts);
  const base = `/v2/workspaces/${encodeURIComponent(opts.workspace)}/projects/${encodeURIComponent(opts.project)}/api-keys`;
  if (route.kind === 'server') return (await callServer(route, method, base + suffix, body)) as T;
  return withAppContext((ctx) => direct(ctx.get(WorkspacesService)));
}

const target = (command: Command) =>
  remoteOptions(
    command
      .requiredOption('--workspace <slug>', 'workspace slug')
      .requiredOption('--project <slug>', 'project slug')
      .option('--json', 'print JSON'),
    'manage keys',
    'PARLEY_ADMIN_KEY',
    'the admin key',
  );

export function keysCommand(): Command {
  const keys = new Command('keys').description('manage project API keys (with --url, --key is the admin key)');
  target(keys.command('create').description('create a project API key (printed once; only its hash is stored)'))
    .option('--name <name>', 'a label for the key', 'default')
    .option('--preset <preset>', `a named set of scopes: ${PRESET_NAMES.join(', ')} (use "app" for a key an application embeds)`)
    .option('--scopes <list>', `comma-separated scopes (${SCOPES.join(', ')}); with neither this nor --preset the key has every scope`)
    .option('--environments <list>', 'comma-separated environments the key may invoke (default: all)')
    .action(async (opts: KeyTarget & { name: string } & AccessOptions) => {
      const body: CreateApiKeyDto = { name: opts.name, ...accessBody(opts) };
      const key = await run(opts, 'POST', '', (w) => w.createApiKey(opts.workspace, opts.project, body), body);
      const summary = {
        id: key.id,
        key: key.key,
        workspace: key.workspace,
        project: key.project,
        scopes: key.scopes,
        environments: key.environments,
      };
      output(!!opts.json, summary, () => `Created key ${key.id} for ${key.workspace}/${key.project} (${describeAccess(key)}):\n${key.key}`);
    });
  target(keys.command('list').description("list a project's keys (never the secrets)")).action(async (opts: KeyTarget) => {
    // The server answers {object: 'list', data}; the service returns the array.
    const answer: unknown = await run<unknown>(opts, 'GET', '', (w) => w.listKeysWithActivity(opts.workspace, opts.project));
    const list = (Array.isArray(answer) ? answer : (answer as { data: KeyInfo[] }).data) as KeyInfo[];
    output(!!opts.json, list, () =>
      list.length === 0
        ? `No keys in ${opts.workspace}/${opts.project}.`
        : list
            .map(
              (k) =>
                `${k.id}  ${k.prefix}…  ${k.name}  ${describeAccess(k)}  created ${k.createdAt}${k.revokedAt ? `  REVOKED ${k.revokedAt}` : ''}`,
            )
            .join('\n'),
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
