import * as fs from 'node:fs';
import * as path from 'node:path';

import { Command, Option } from 'commander';

import { ApplyService, INVALID_FILE } from '../../apply/apply.service';
import { parseApplyText } from '../../apply/apply-file.parser';
import type { ApplyOptions } from '../../apply/apply-lifecycle';
import { ApplySummary, describeSummary } from '../../apply/apply-summary';
import { ApiException, badRequest } from '../../common/errors';
import { output, withAppContext } from '../cli-context';
import { callServer, chooseRoute, RemoteApiError, RemoteOptions } from '../server-route';

/** `--url` and `--key`, shared by every command that can go through a running server. */
export function remoteOptions(
  command: Command,
  what: string,
  keyEnv = 'PARLEY_KEY',
  keyHelp = 'the admin key, or a key of the project',
): Command {
  return command
    .addOption(new Option('--url <url>', `${what} through the Parley server at this URL`).env('PARLEY_URL'))
    .addOption(new Option('--key <key>', `API key for --url: ${keyHelp}`).env(keyEnv));
}

/**
 * A path as the user typed it: `npm run cli` runs in the package's root, and npm tells where the
 * user was in INIT_CWD, so `-f parley.yaml` means the file of the directory they were in.
 */
export function userPath(file: string): string {
  return path.resolve(process.env.INIT_CWD ?? process.cwd(), file);
}

export function readInput(file: string): string {
  return fs.readFileSync(file === '-' ? 0 : userPath(file), 'utf8');
}

/**
 * Applies the text of a parley.yaml: through a server (`--url`, or the server holding DATA_DIR), or on
 * the database directly. A file that names no valid workspace and project fails here, without a
 * connection; any other broken file goes to the server, which adds the problems only the database
 * can see (unknown environments, providers, changed kinds) to the same report.
 */
export async function runApply(text: string, options: RemoteOptions & ApplyOptions): Promise<ApplySummary> {
  const parsed = parseApplyText(text);
  if (!parsed.ok && !parsed.references) throw badRequest(INVALID_FILE, parsed.issues);
  const applying = { prune: options.prune === true, dryRun: options.dryRun === true };
  try {
    const route = await chooseRoute(options);
    if (route.kind === 'server') {
      const query = new URLSearchParams(
        Object.entries(applying).flatMap(([name, on]): [string, string][] => (on ? [[name, 'true']] : [])),
      ).toString();
      return (await callServer(route, 'POST', `/v2/apply${query ? `?${query}` : ''}`, { yaml: text })) as ApplySummary;
    }
    return await withAppContext((ctx) => ctx.get(ApplyService).applyText(text, { kind: 'admin' }, applying));
  } catch (err) {
    // No server or database to ask: what the file alone shows is still the report.
    if (!parsed.ok && !(err instanceof RemoteApiError) && !(err instanceof ApiException)) throw badRequest(INVALID_FILE, parsed.issues);
    throw err;
  }
}

export function applyCommand(): Command {
  const command = new Command('apply')
    .description('make a workspace and project match a parley.yaml: declarative, idempotent, one transaction')
    .requiredOption('-f, --file <path>', 'the parley.yaml to apply ("-" reads standard input)')
    .option('--json', 'print a JSON summary of what was created, versioned, deployed or left unchanged')
    .option('--prune', 'also archive the prompts and delete the environments the file no longer lists (what is still deployed is kept)')
    .option('--dry-run', 'print what applying would change, and write nothing');
  return remoteOptions(command, 'apply').action(async (opts: { file: string; json?: boolean } & RemoteOptions & ApplyOptions) => {
    let summary: ApplySummary;
    try {
      summary = await runApply(readInput(opts.file), opts);
    } catch (err) {
      // Scripts reading --json get the error body too; the human message still goes to stderr.
      if (opts.json && (err instanceof ApiException || err instanceof RemoteApiError)) console.log(JSON.stringify(err.body, null, 2));
      throw err;
    }
    output(!!opts.json, summary, () => describeSummary(summary));
    for (const warning of summary.warnings ?? []) console.error(`parley: warning: ${warning}`);
  });
}
