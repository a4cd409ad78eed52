import { Command } from 'commander';
import { WorkspacesService } from '../../workspaces/workspaces.service';
import { output, withAppContext } from '../cli-context';

export function keysCommand(): Command {
  const keys = new Command('keys').description('manage project API keys');
  keys
    .command('create')
    .description('create a project API key (the key is printed once; only its hash is stored)')
    .requiredOption('--workspace <slug>', 'workspace slug')
    .requiredOption('--project <slug>', 'project slug')
    .option('--name <name>', 'a label for the key', 'default')
    .option('--json', 'print {"id","key","workspace","project"}')
    .action(async (opts: { workspace: string; project: string; name: string; json?: boolean }) => {
      const key = await withAppContext((ctx) => ctx.get(WorkspacesService).createApiKey(opts.workspace, opts.project, opts.name));
      const summary = { id: key.id, key: key.key, workspace: key.workspace, project: key.project };
      output(!!opts.json, summary, () => `Created key ${key.id} for ${key.workspace}/${key.project}:\n${key.key}`);
    });
  return keys;
}
