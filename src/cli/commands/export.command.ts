import * as fs from 'node:fs';

import { Command } from 'commander';

import { ExportService } from '../../apply/export.service';
import { withAppContext } from '../cli-context';
import { callServer, chooseRoute, RemoteOptions } from '../server-route';
import { remoteOptions, userPath } from './apply.command';

/** The project's prompts and assistants as deployed, as parley.yaml text (applying it changes nothing). */
export async function runExport(workspace: string, project: string, options: RemoteOptions): Promise<string> {
  const route = await chooseRoute(options);
  if (route.kind === 'server') {
    const query = new URLSearchParams({ workspace, project });
    return (await callServer(route, 'GET', `/v2/export?${query}`)) as string;
  }
  return withAppContext((ctx) => ctx.get(ExportService).exportProject(workspace, project, { kind: 'admin' }));
}

export function exportCommand(): Command {
  const command = new Command('export')
    .description("print a project's prompts and assistants, as deployed, as a parley.yaml")
    .requiredOption('--workspace <slug>', 'workspace slug')
    .requiredOption('--project <slug>', 'project slug')
    .option('-o, --output <file>', 'write the YAML to this file (nothing else can end up in it, unlike `npm run cli -- export > file`)');
  return remoteOptions(command, 'export').action(async (opts: { workspace: string; project: string; output?: string } & RemoteOptions) => {
    const text = await runExport(opts.workspace, opts.project, opts);
    if (!opts.output) return void process.stdout.write(text);
    fs.writeFileSync(userPath(opts.output), text);
    console.error(`Wrote ${opts.workspace}/${opts.project} to ${opts.output}`);
  });
}
