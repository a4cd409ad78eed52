import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { CreateTransaction } from '../idempotency/create-transaction';
import { EnvironmentDeletionService } from '../registry/environments/environment-deletion.service';
import { EnvironmentsService } from '../registry/environments/environments.service';
import { PromptEntity } from '../registry/prompts/prompt.entity';
import { deployedMessage, PromptLifecycleService } from '../registry/prompts/prompt-lifecycle.service';
import { PromptsService } from '../registry/prompts/prompts.service';
import type { ApplyFile } from './apply-file.parser';
import { PruneSummary } from './apply-summary';

/** What POST /v2/apply takes beside the file (`?prune=true&dryRun=true`; `parley apply --prune --dry-run`). */
export interface ApplyOptions {
  /** Archive the prompts and delete the environments the file no longer lists (docs/apply.md, "Pruning"). */
  prune?: boolean;
  /** Run the whole apply, answer its summary, and roll it back: nothing is written. */
  dryRun?: boolean;
}

/** What a rolled-back transaction carries out: the work's answer. */
class RolledBack<T> {
  constructor(readonly value: T) {}
}

/**
 * A CreateTransaction that runs the work and rolls it back, answering what the work answered: a
 * dry run sees every check, lock and refusal a real apply meets (its own reads included), and
 * leaves nothing behind, its audit events and cache announcements (pg_notify) included.
 */
export function rollingBack(dataSource: DataSource): CreateTransaction {
  const run = async <T>(work: (manager: EntityManager) => Promise<T>): Promise<T> => {
    try {
      await dataSource.transaction(async (manager) => {
        throw new RolledBack(await work(manager));
      });
    } catch (err) {
      if (err instanceof RolledBack) return err.value as T;
      throw err;
    }
    throw new Error('unreachable: a rolled-back transaction always throws');
  };
  return { run, runSingle: run };
}

/**
 * The file against archived prompts and extra environments (docs/apply.md, "Pruning"): a prompt
 * the file lists is restored if it was archived; with `prune`, a live one it does not list is
 * archived unless still deployed, and an environment it neither lists, deploys to nor gates is
 * deleted unless it runs something, is protected or has pending requests. What cannot go is kept
 * and the summary says why: prune never undeploys, nor lifts a protection.
 */
@Injectable()
export class ApplyLifecycle {
  constructor(
    private readonly prompts: PromptsService,
    private readonly lifecycle: PromptLifecycleService,
    private readonly environments: EnvironmentsService,
    private readonly deletion: EnvironmentDeletionService,
  ) {}

  /** Restores `prompt` when archived (the caller holds its row lock); true when it did. */
  async restoreListed(manager: EntityManager, prompt: PromptEntity): Promise<boolean> {
    if (!prompt.archivedAt) return false;
    await this.lifecycle.setArchived(manager, prompt, false);
    return true;
  }

  /** After the file's own changes, in the same transaction. */
  async prune(manager: EntityManager, projectId: string, file: ApplyFile): Promise<PruneSummary> {
    const summary: PruneSummary = { prompts: [], environments: [] };
    const listed = new Set(file.prompts.map((p) => p.declared.slug));
    for (const prompt of await this.prompts.listAll(projectId, manager)) {
      if (listed.has(prompt.slug) || prompt.archivedAt) continue;
      await this.prompts.lock(manager, prompt);
      const deployed = await this.lifecycle.deployedIn(manager, prompt);
      if (deployed.length > 0) {
        summary.prompts.push({ slug: prompt.slug, kind: prompt.kind, action: 'kept', reason: deployedMessage(prompt.slug, deployed) });
        continue;
      }
      await this.lifecycle.setArchived(manager, prompt, true);
      summary.prompts.push({ slug: prompt.slug, kind: prompt.kind, action: 'archived' });
    }
    const named = new Set([
      ...file.environments,
      ...file.references.prompts.flatMap((p) => p.deploy.map((d) => d.environment)),
      ...file.gates.map((g) => g.environment),
    ]);
    for (const environment of await this.environments.listEntities(projectId, manager)) {
      if (named.has(environment.slug)) continue;
      const locked = await this.deletion.lock(manager, projectId, environment.slug);
      if (!locked) continue;
      const reason = await this.deletion.refusal(manager, locked);
      if (reason) summary.environments.push({ slug: environment.slug, action: 'kept', reason });
      else {
        await this.deletion.remove(manager, locked);
        summary.environments.push({ slug: environment.slug, action: 'deleted' });
      }
    }
    return summary;
  }
}
