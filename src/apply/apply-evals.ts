import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';

import { AuditLog } from '../audit/audit-log';
import { newId } from '../common/ids';
import { ITEMS_PER_CALL } from '../evals/datasets/dataset-item.schema';
import { DatasetRow, DatasetsRepository, ItemRow, NewItem } from '../evals/datasets/datasets.repository';
import { defaultThreshold } from '../evals/graders/grader.schema';
import { GradersService } from '../evals/graders/graders.service';
import { canonicalJson } from '../registry/content/content-hash';
import { EnvironmentEntity } from '../registry/environments/environment.entity';
import { EnvironmentGates } from '../registry/environments/environment-gates';
import type { ApplyReferences } from './apply-file.parser';
import type { DeclaredDataset, DeclaredGate, DeclaredGrader } from './apply-file.schema';
import type { ApplySummary } from './apply-summary';

type EvalsSummary = Pick<ApplySummary, 'graders' | 'datasets' | 'gates'>;

/** An item's content as parley.yaml holds it: what two items are compared by (ids, sources and dates are not content). */
export function itemContent(item: { variables: unknown; messages: unknown; expected?: unknown; metadata: unknown }): string {
  const { variables, messages, expected, metadata } = item;
  return canonicalJson({ variables, messages, expected: expected ?? undefined, metadata });
}

/**
 * Which live items a dataset keeps, drops and gains to hold exactly the declared items: an item
 * whose content the file still holds keeps its id (runs on both versions compare it item by
 * item); any other live item is removed and any other declared item added. Duplicates count.
 */
export function diffItems<T>(live: ItemRow[], declared: T[], contentOf: (item: T) => string): { removed: string[]; added: T[] } {
  const pool = new Map<string, string[]>();
  for (const row of live) {
    const key = itemContent(row);
    pool.set(key, [...(pool.get(key) ?? []), row.id]);
  }
  const added = declared.filter((item) => {
    const ids = pool.get(contentOf(item));
    return !ids?.shift();
  });
  return { removed: [...pool.values()].flat(), added };
}

/** References of a file's gates that neither the file nor the database satisfies. */
export function gateReferenceIssues(file: ApplyReferences, environments: Set<string>, datasets: Set<string>): string[] {
  const known = new Set([...file.datasetNames, ...datasets]);
  return file.gates.flatMap(({ index, environment, dataset }) => [
    ...(environment !== undefined && !environments.has(environment)
      ? [file.describe(['gates', index, 'environment'], `no environment "${environment}": list it under environments`)]
      : []),
    ...(dataset !== undefined && !known.has(dataset)
      ? [file.describe(['gates', index, 'dataset'], `no dataset "${dataset}": declare it under datasets`)]
      : []),
  ]);
}

/**
 * parley.yaml's graders, datasets and gates (docs/apply.md, "Evaluations"), in apply's transaction
 * and before its deploys, so a gate the file declares applies to the file's own deploys. Like the
 * rest of apply it only adds and changes: graders, datasets, items of undeclared datasets and gates
 * the file does not mention stay as they are.
 */
@Injectable()
export class ApplyEvals {
  constructor(
    private readonly datasets: DatasetsRepository,
    private readonly graders: GradersService,
    private readonly gates: EnvironmentGates,
    private readonly audit: AuditLog,
  ) {}

  async datasetNames(projectId: string, manager: EntityManager): Promise<Set<string>> {
    return new Set((await this.datasets.listAll(projectId, manager)).map((d) => d.name));
  }

  async apply(
    manager: EntityManager,
    projectId: string,
    file: { graders: DeclaredGrader[]; datasets: DeclaredDataset[]; gates: DeclaredGate[] },
    environments: Map<string, EnvironmentEntity>,
  ): Promise<EvalsSummary> {
    const summary: EvalsSummary = { graders: [], datasets: [], gates: [] };
    const stored = new Map((await this.graders.allRows(projectId, manager)).map((row) => [row.name, row]));
    for (const grader of file.graders) {
      const threshold = grader.threshold ?? defaultThreshold(grader.config);
      const row = stored.get(grader.name);
      if (row && Number(row.threshold) === threshold && canonicalJson(row.config) === canonicalJson(grader.config)) {
        summary.graders.push({ name: grader.name, action: 'unchanged' });
        continue;
      }
      const { created } = await this.graders.put({ projectId }, grader.name, { threshold, config: grader.config }, manager);
      summary.graders.push({ name: grader.name, action: created ? 'created' : 'updated' });
    }
    for (const dataset of file.datasets) summary.datasets.push(await this.applyDataset(manager, projectId, dataset));
    for (const gate of file.gates) summary.gates.push(await this.applyGate(manager, projectId, gate, environments.get(gate.environment)!));
    return summary;
  }

  private async applyDataset(
    manager: EntityManager,
    projectId: string,
    declared: DeclaredDataset,
  ): Promise<EvalsSummary['datasets'][number]> {
    let row = await this.datasets.findByName(projectId, declared.name, manager, true);
    let action: EvalsSummary['datasets'][number]['action'] = 'unchanged';
    if (!row) {
      const now = new Date();
      row = {
        id: newId(),
        name: declared.name,
        description: declared.description ?? '',
        version: 0,
        item_count: 0,
        created_at: now,
        updated_at: now,
      };
      await this.datasets.insert(manager, projectId, row);
      await this.record(projectId, manager, 'dataset.created', declared.name, { name: row.name, description: row.description });
      action = 'created';
    } else if (declared.description !== undefined && declared.description !== row.description) {
      await this.datasets.setDescription(manager, projectId, row.id, declared.description);
      await this.record(projectId, manager, 'dataset.updated', declared.name, { description: declared.description });
      action = 'updated';
    }
    const result = { name: declared.name, action, version: Number(row.version), itemCount: Number(row.item_count) };
    if (declared.items === undefined) return result;
    const live = action === 'created' ? [] : await this.datasets.liveItemsIn(manager, projectId, row.id);
    const { removed, added } = diffItems(live, declared.items, itemContent);
    if (removed.length === 0 && added.length === 0) return result;
    return {
      ...(await this.replaceItems(manager, projectId, row, declared.items.length, removed, added)),
      action: action === 'created' ? 'created' : 'versioned',
    };
  }

  /** One new version: the removed items' revisions end, the added ones begin. */
  private async replaceItems(
    manager: EntityManager,
    projectId: string,
    row: DatasetRow,
    itemCount: number,
    removed: string[],
    added: NonNullable<DeclaredDataset['items']>,
  ): Promise<Omit<EvalsSummary['datasets'][number], 'action'>> {
    const version = Number(row.version) + 1;
    await this.datasets.closeItems(manager, projectId, row.id, removed, version);
    const items: NewItem[] = added.map((item) => ({ ...item, id: newId(), source: { apply: 'parley.yaml' } }));
    for (let start = 0; start < items.length; start += ITEMS_PER_CALL)
      await this.datasets.insertItems(manager, projectId, row.id, version, items.slice(start, start + ITEMS_PER_CALL));
    const change = `parley apply: ${added.length} added, ${removed.length} removed`;
    await this.datasets.bump(manager, projectId, row.id, version, itemCount, change);
    await this.record(projectId, manager, 'dataset.items_replaced', row.name, {
      version,
      itemCount,
      added: added.length,
      removed: removed.length,
    });
    return { name: row.name, version, itemCount, added: added.length, removed: removed.length };
  }

  private async applyGate(
    manager: EntityManager,
    projectId: string,
    declared: DeclaredGate,
    environment: EnvironmentEntity,
  ): Promise<EvalsSummary['gates'][number]> {
    const before = await this.gates.get(projectId, environment.id, manager);
    const settings = { dataset: declared.dataset, minScores: declared.minScores };
    const same = before && before.dataset === settings.dataset && canonicalJson(before.minScores) === canonicalJson(settings.minScores);
    if (!same) {
      await this.gates.put(manager, projectId, environment.id, settings);
      await this.audit.record(manager, {
        projectId,
        action: 'environment.gate_set',
        resourceType: 'environment',
        resourceId: environment.slug,
        before: before ? { ...before } : null,
        after: { ...settings },
      });
    }
    return { environment: environment.slug, dataset: declared.dataset, action: same ? 'unchanged' : before ? 'updated' : 'created' };
  }

  private record(projectId: string, manager: EntityManager, action: string, name: string, after: Record<string, unknown>): Promise<void> {
    return this.audit.record(manager, { projectId, action, resourceType: 'dataset', resourceId: name, after });
  }
}
