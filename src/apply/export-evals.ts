import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { DatasetsRepository, ItemRow } from '../evals/datasets/datasets.repository';
import { defaultThreshold } from '../evals/graders/grader.schema';
import { GradersService } from '../evals/graders/graders.service';
import { EnvironmentEntity } from '../registry/environments/environment.entity';
import { EnvironmentGates } from '../registry/environments/environment-gates';

const nonEmpty = (value: Record<string, unknown> | unknown[]) => (Array.isArray(value) ? value.length > 0 : Object.keys(value).length > 0);

/** An item as parley.yaml writes it: only the fields that hold something. */
function itemEntry(item: ItemRow): Record<string, unknown> {
  return {
    ...(nonEmpty(item.variables) ? { variables: sortedKeys(item.variables) } : {}),
    ...(nonEmpty(item.messages) ? { messages: item.messages } : {}),
    ...(item.expected !== null && item.expected !== undefined ? { expected: item.expected } : {}),
    ...(nonEmpty(item.metadata) ? { metadata: sortedKeys(item.metadata) } : {}),
  };
}

/** jsonb keeps its own key order (shortest first); a file reads better, and diffs stay stable, sorted. */
export function sortedKeys<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b))) as T;
}

/**
 * `parley export`'s graders, datasets (every live item) and gates (docs/apply.md, "Evaluations"),
 * written so that applying them back changes nothing.
 */
@Injectable()
export class ExportEvals {
  constructor(
    private readonly dataSource: DataSource,
    private readonly datasets: DatasetsRepository,
    private readonly graders: GradersService,
    private readonly gates: EnvironmentGates,
  ) {}

  async sections(projectId: string, environments: EnvironmentEntity[], notes: string[]): Promise<Record<string, unknown[]>> {
    const graders = (await this.graders.allRows(projectId)).map((row) => {
      const { type, ...check } = row.config;
      return {
        name: row.name,
        ...(Number(row.threshold) !== defaultThreshold(row.config) ? { threshold: Number(row.threshold) } : {}),
        config: { type, ...sortedKeys(check) },
      };
    });
    const datasets: Record<string, unknown>[] = [];
    for (const row of await this.datasets.listAll(projectId)) {
      const items = await this.datasets.liveItemsIn(this.dataSource.manager, projectId, row.id);
      datasets.push({ name: row.name, ...(row.description ? { description: row.description } : {}), items: items.map(itemEntry) });
    }
    const gates: Record<string, unknown>[] = [];
    for (const environment of environments) {
      const gate = await this.gates.get(projectId, environment.id);
      if (!gate) continue;
      // A gate whose dataset was deleted refuses every deploy until it is set again; a file could not name that dataset.
      if (!(await this.datasets.findByName(projectId, gate.dataset)))
        notes.push(`the deploy gate of ${environment.slug} names a deleted dataset, so it is not in this file`);
      else gates.push({ environment: environment.slug, dataset: gate.dataset, minScores: sortedKeys(gate.minScores) });
    }
    return {
      ...(graders.length > 0 ? { graders } : {}),
      ...(datasets.length > 0 ? { datasets } : {}),
      ...(gates.length > 0 ? { gates } : {}),
    };
  }
}
