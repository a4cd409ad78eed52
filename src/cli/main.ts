#!/usr/bin/env node
import 'reflect-metadata';

import { Command, CommanderError } from 'commander';

import { ApiException } from '../common/errors';
import { ConfigError } from '../config/app-config';
import { DataDirLockedError } from '../database/data-dir-lock';
import { applyCommand } from './commands/apply.command';
import { evalCommand } from './commands/eval.command';
import { exportCommand } from './commands/export.command';
import { importCommand } from './commands/import.command';
import { initCommand } from './commands/init.command';
import { keysCommand } from './commands/keys.command';
import { migrateCommand } from './commands/migrate.command';
import { PARLEY_VERSION } from './version';

/** `parley <command>`; also `npm run cli -- <command>`. Configuration comes from the same environment as the server. */
export function buildProgram(): Command {
  return new Command('parley')
    .description('Parley: prompt and assistant registry, invocation gateway and conversation threads')
    .version(PARLEY_VERSION, '-V, --version', 'print the version of Parley')
    .addCommand(initCommand())
    .addCommand(keysCommand())
    .addCommand(migrateCommand())
    .addCommand(applyCommand())
    .addCommand(exportCommand())
    .addCommand(importCommand())
    .addCommand(evalCommand())
    .exitOverride();
}

/** One line a problem, no stack trace, exit code 1 (2 for usage errors). */
export function describeFailure(err: unknown): string {
  if (err instanceof ApiException) {
    const error = (err.body as { error?: { message?: string; details?: string[] } | string }).error;
    if (typeof error !== 'object' || !error?.message) return JSON.stringify(err.body);
    // An invalid parley.yaml lists every problem, one per line.
    return [error.message, ...(error.details ?? []).map((d) => `  - ${d}`)].join('\n');
  }
  if (err instanceof ConfigError || err instanceof DataDirLockedError) return err.message;
  return err instanceof Error ? err.message : String(err);
}

if (require.main === module) {
  buildProgram()
    .parseAsync(process.argv)
    .catch((err) => {
      if (err instanceof CommanderError) process.exit(err.exitCode);
      console.error(`parley: ${describeFailure(err)}`);
      process.exit(1);
    });
}
