import { Command, Option } from 'commander';

import { badRequest } from '../../common/errors';
import { parseAssistantsExport, recordsOfJsonLines } from '../../import/assistants-export.parser';
import { ImportFacade } from '../../import/import.facade';
import { ImportSummary, INVALID_IMPORT } from '../../import/import.service';
import { output, withAppContext } from '../cli-context';
import { ImportCliModule } from '../import-cli.module';
import { callServer, chooseRoute, RemoteOptions } from '../server-route';
import { readInput, remoteOptions } from './apply.command';

export interface ImportOptions extends RemoteOptions {
  workspace?: string;
  project?: string;
}

/**
 * Imports the text of an Assistants API export (JSON lines): through a server (`--url`, or the
 * server holding DATA_DIR) or on the database. The file is checked here first, so a broken file
 * fails before any connection. See docs/import.md.
 */
export async function runImportAssistantsThreads(text: string, options: ImportOptions): Promise<ImportSummary> {
  const { records, problems } = recordsOfJsonLines(text);
  const parsed = problems.length === 0 ? parseAssistantsExport(records) : { ok: false as const, problems };
  if (!parsed.ok) throw badRequest(INVALID_IMPORT, parsed.problems);
  const target = {
    ...(options.workspace ? { workspace: options.workspace } : {}),
    ...(options.project ? { project: options.project } : {}),
  };
  const route = await chooseRoute(options);
  if (route.kind === 'server') return (await callServer(route, 'POST', '/v2/import', { ...target, records })) as ImportSummary;
  if (!options.workspace || !options.project) throw new Error('--workspace and --project are required when importing on the database');
  const slugs = { kind: 'slugs' as const, workspace: options.workspace, project: options.project };
  return withAppContext((ctx) => ctx.get(ImportFacade).run(slugs, records), ImportCliModule);
}

const describeImport = (s: ImportSummary) =>
  [
    ...s.threads.map(
      (t) =>
        `thread ${t.source_id} -> ${t.thread_id}: ${t.action}, ${t.messages_created} messages created, ${t.messages_existing} already there`,
    ),
    `${s.threads_created} threads and ${s.messages_created} messages created`,
  ].join('\n');

export function importCommand(): Command {
  const assistantsThreads = new Command('assistants-threads')
    .description('import threads and messages from an Assistants API export (JSON lines); idempotent')
    .argument('<file>', 'the export ("-" reads standard input)')
    .addOption(new Option('--workspace <slug>', 'target workspace (required on the database or with the admin key)'))
    .addOption(new Option('--project <slug>', 'target project (required on the database or with the admin key)'))
    .option('--json', 'print the JSON summary');
  remoteOptions(assistantsThreads, 'import').action(async (file: string, opts: ImportOptions & { json?: boolean }) => {
    const summary = await runImportAssistantsThreads(readInput(file), opts);
    output(!!opts.json, summary, () => describeImport(summary));
  });
  return new Command('import').description('import conversations from other systems').addCommand(assistantsThreads);
}
