import { Command } from 'commander';

import { InitService } from '../../setup/init.service';
import { output, withAppContext } from '../cli-context';

export function initCommand(): Command {
  return new Command('init')
    .description('create the default workspace, project and keys if the database is empty')
    .option('--json', 'print a JSON summary')
    .action(async (opts: { json?: boolean }) => {
      const result = await withAppContext((ctx) => ctx.get(InitService).initIfEmpty());
      output(!!opts.json, result, () =>
        result.created
          ? [
              `Created workspace "${result.workspace}" and project "${result.project}".`,
              `Project API key (shown only now): ${result.projectKey}`,
              ...(result.adminKey ? [`Admin API key (shown only now): ${result.adminKey}`] : []),
              ...(result.demo
                ? [`Seeded "${result.demo.prompt}" and "${result.demo.assistant}" (local/echo), deployed to ${result.demo.environment}.`]
                : []),
            ].join('\n')
          : 'The database already has a workspace: nothing to do.',
      );
    });
}
