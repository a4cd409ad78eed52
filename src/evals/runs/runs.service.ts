import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { AuditLog } from '../../audit/audit-log';
import { hasScope, ProjectPrincipal } from '../../auth/principal';
import { forbidden, invalidBody, notFound } from '../../common/errors';
import { newId } from '../../common/ids';
import { pageLimit, toPage } from '../../common/pagination';
import { isSlugLike } from '../../common/validation/slug';
import { AppConfig } from '../../config/app-config';
import { ChangeNotifier } from '../../database/changes';
import { CreateTransaction, plainTransaction } from '../../idempotency/create-transaction';
import { InvocationService } from '../../invocation/invocation.service';
import { JobQueue } from '../../jobs/job-queue';
import { ifArchived } from '../../registry/prompts/prompt-archived';
import { PromptsService } from '../../registry/prompts/prompts.service';
import { RegistryService } from '../../registry/registry.service';
import { DatasetsService } from '../datasets/datasets.service';
import { defaultThreshold, GraderSpec } from '../graders/grader.schema';
import { configProblems, GradersService } from '../graders/graders.service';
import { CompareDto, CompareQuery, RunDto, RunItemListDto, RunItemsQuery, RunListDto, RunsQuery } from './run.dto';
import { CreateRunBody, StoredTarget } from './run.schema';
import { compareGraders, toRunDto, toRunItemDto } from './run-mapper';
import { RunTargets } from './run-target';
import { RunRow, RunsRepository } from './runs.repository';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What a queued run's job keeps: the caller the run's calls are made as, on any instance. */
export interface RunJobRequest {
  caller: ProjectPrincipal;
}

/**
 * Experiment runs (docs/evals.md, "Experiments"): created with their job in one transaction,
 * run by EvalRunWorker on any instance, read, cancelled and compared here.
 */
@Injectable()
export class RunsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly runs: RunsRepository,
    private readonly datasets: DatasetsService,
    private readonly graders: GradersService,
    private readonly targets: RunTargets,
    private readonly registry: RegistryService,
    private readonly prompts: PromptsService,
    private readonly invocation: InvocationService,
    private readonly queue: JobQueue,
    private readonly changes: ChangeNotifier,
    private readonly audit: AuditLog,
    private readonly config: AppConfig,
  ) {}

  async create(caller: ProjectPrincipal, body: CreateRunBody, tx: CreateTransaction = plainTransaction(this.dataSource)): Promise<RunDto> {
    // A run calls models: the key must be allowed to invoke as well as to change the registry.
    if (!hasScope(caller, 'invoke')) throw forbidden('This API key lacks the invoke scope an experiment run needs');
    const dataset = await this.datasets.require(caller.projectId, body.dataset);
    const current = Number(dataset.version);
    const datasetVersion = body.datasetVersion ?? current;
    if (datasetVersion > current) throw invalidBody([`datasetVersion: dataset "${body.dataset}" has no version ${datasetVersion}`]);
    const graders = await this.gradersOf(caller, body.graders);
    const id = newId();
    const target = await this.storedTarget(caller, body.target);
    // Resolved now, so a target that cannot run is refused here rather than failing every item.
    const prepared = await this.targets.prepare(caller, id, target);
    const totalItems = await this.countAt(caller.projectId, dataset.id, datasetVersion, current, Number(dataset.item_count));
    const row: RunRow = {
      id,
      name:
        body.name ??
        `${target.prompt ?? 'draft'}${target.type === 'version' ? ` v${target.version}` : ' (draft)'} on ${dataset.name} v${datasetVersion}`,
      status: 'queued',
      dataset_id: dataset.id,
      dataset_name: dataset.name,
      dataset_version: datasetVersion,
      target,
      prompt_id: prepared.promptId,
      prompt_version_id: prepared.promptVersionId,
      graders,
      concurrency: body.concurrency,
      total_items: totalItems,
      completed_items: 0,
      errored_items: 0,
      passed_items: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      cost_usd: '0',
      latency_ms_sum: 0,
      error: null,
      created_by: { keyId: caller.keyId, keyName: caller.keyName },
      metadata: body.metadata,
      created_at: new Date(),
      started_at: null,
      finished_at: null,
    };
    return tx.run(async (manager) => {
      await this.runs.insert(manager, caller.projectId, row);
      const request: RunJobRequest = { caller };
      await this.queue.insert(manager, {
        kind: 'eval_run',
        projectId: caller.projectId,
        id,
        background: true,
        request,
        owner: null,
        leaseMs: this.config.responseJobs.leaseMs,
      });
      await this.audit.record(manager, {
        projectId: caller.projectId,
        action: 'eval_run.created',
        resourceType: 'eval_run',
        resourceId: id,
        after: {
          name: row.name,
          dataset: dataset.name,
          datasetVersion,
          target: describeTarget(target),
          graders: graders.map((g) => g.name),
        },
      });
      await this.changes.publish({ kind: 'response-jobs' }, manager);
      return toRunDto(row, []);
    });
  }

  async get(caller: ProjectPrincipal, id: string): Promise<RunDto> {
    const row = await this.require(caller.projectId, id);
    return toRunDto(row, await this.runs.graderTotals(caller.projectId, id));
  }

  async list(caller: ProjectPrincipal, query: RunsQuery): Promise<RunListDto> {
    const limit = pageLimit(query);
    const filter: { promptId?: string; datasetId?: string } = {};
    if (query.prompt !== undefined) {
      const prompt = isSlugLike(query.prompt) ? await this.prompts.require(caller.projectId, query.prompt).catch(() => null) : null;
      if (!prompt) return { object: 'list', data: [], has_more: false, first_id: null, last_id: null };
      filter.promptId = prompt.id;
    }
    if (query.dataset !== undefined) filter.datasetId = (await this.datasets.require(caller.projectId, query.dataset)).id;
    const after = query.after !== undefined && UUID.test(query.after) ? query.after : null;
    const rows = await this.runs.list(caller.projectId, filter, after, limit + 1);
    // Each run with its per-grader totals: one more query for the whole page.
    const totals = await this.runs.graderTotalsOf(
      caller.projectId,
      rows.map((row) => row.id),
    );
    const data = rows.map((row) => toRunDto(row, totals.get(row.id) ?? []));
    return { object: 'list', ...toPage(data, limit) };
  }

  async items(caller: ProjectPrincipal, id: string, query: RunItemsQuery): Promise<RunItemListDto> {
    const run = await this.require(caller.projectId, id);
    const limit = pageLimit(query);
    const after = query.after !== undefined && UUID.test(query.after) ? query.after : null;
    const passed = query.passed === undefined ? undefined : query.passed === 'true';
    const rows = await this.runs.items(
      caller.projectId,
      { id, datasetId: run.dataset_id, datasetVersion: Number(run.dataset_version) },
      { passed },
      after,
      limit + 1,
    );
    const page = toPage(
      rows.map((row) => ({ ...toRunItemDto(row), id: row.item_id })),
      limit,
    );
    return { object: 'list', ...page, data: page.data.map(({ id: _id, ...item }) => item) };
  }

  async cancel(caller: ProjectPrincipal, id: string): Promise<RunDto> {
    await this.dataSource.transaction(async (manager) => {
      const row = UUID.test(id) ? await this.runs.find(caller.projectId, id, manager, true) : null;
      if (!row) throw notFound('Run not found');
      if (row.status !== 'queued' && row.status !== 'running') return;
      if (!(await this.queue.removeQueued(manager, caller.projectId, id))) {
        await this.queue.requestCancel(manager, caller.projectId, id);
        await this.changes.publish({ kind: 'job-cancel', jobId: id }, manager);
      }
      await this.runs.setStatus(manager, caller.projectId, id, 'cancelled');
      await this.audit.record(manager, {
        projectId: caller.projectId,
        action: 'eval_run.cancelled',
        resourceType: 'eval_run',
        resourceId: id,
        after: { status: 'cancelled' },
      });
    });
    return this.get(caller, id);
  }

  /** Item by item: `candidate` against `base` (docs/evals.md, "Comparing runs"). */
  async compare(caller: ProjectPrincipal, candidateId: string, baseId: string, query: CompareQuery): Promise<CompareDto> {
    const [candidate, base] = await Promise.all([this.get(caller, candidateId), this.get(caller, baseId)]);
    const candidateRow = await this.require(caller.projectId, candidateId);
    const outcome = query.outcome ?? 'regressed';
    const limit = pageLimit(query);
    const after = query.after !== undefined && UUID.test(query.after) ? query.after : null;
    const [counts, rows] = await Promise.all([
      this.runs.compareCounts(caller.projectId, candidateId, baseId),
      this.runs.compareItems(caller.projectId, candidateId, baseId, outcome, after, limit + 1, {
        id: candidateRow.dataset_id,
        version: Number(candidateRow.dataset_version),
      }),
    ]);
    const data = rows.slice(0, limit).map((row) => {
      const c = toRunItemDto(row.candidate, row);
      const b = toRunItemDto(row.base, row);
      return { id: row.item_id, delta: Math.round((c.score - b.score) * 1e6) / 1e6, base: b, candidate: c };
    });
    return {
      object: 'eval.comparison',
      base: base.id,
      candidate: candidate.id,
      counts: {
        improved: counts.improved,
        regressed: counts.regressed,
        unchanged: counts.unchanged,
        onlyInBase: counts.only_base,
        onlyInCandidate: counts.only_candidate,
      },
      graders: compareGraders(base, candidate),
      outcome,
      data,
      has_more: rows.length > limit,
      last_id: data.at(-1)?.id ?? null,
    };
  }

  private async require(projectId: string, id: string): Promise<RunRow> {
    const row = UUID.test(id) ? await this.runs.find(projectId, id) : null;
    if (!row) throw notFound('Run not found');
    return row;
  }

  private async countAt(projectId: string, datasetId: string, version: number, current: number, currentCount: number): Promise<number> {
    if (version === current) return currentCount;
    return (await this.datasets.itemCountAt(projectId, datasetId, version)) ?? 0;
  }

  private async gradersOf(caller: ProjectPrincipal, wanted: CreateRunBody['graders']): Promise<GraderSpec[]> {
    const names = wanted.filter((g): g is string => typeof g === 'string');
    const named = names.length ? await this.graders.specsOf(caller.projectId, names) : [];
    const inline = wanted.flatMap((g, index) => {
      if (typeof g === 'string') return [];
      const problems = configProblems(g.config, `graders.${index}.config`);
      if (problems.length) throw invalidBody(problems);
      return [{ name: g.name, threshold: g.threshold ?? defaultThreshold(g.config), config: g.config }];
    });
    const specs = wanted.map((g) =>
      typeof g === 'string' ? named.find((spec) => spec.name === g)! : inline.find((spec) => spec.name === g.name)!,
    );
    const seen = new Set<string>();
    for (const spec of specs) {
      if (seen.has(spec.name)) throw invalidBody([`graders: "${spec.name}" is named twice`]);
      seen.add(spec.name);
    }
    for (const spec of specs)
      if (spec.config.type === 'model') {
        const { prompt, environment, version } = spec.config;
        const judge = await ifArchived(
          this.invocation.resolve(caller, { type: 'deployment', slug: prompt, environment, ...(version ? { version } : {}) }),
          (refusal) => {
            throw invalidBody([`graders: the judge of "${spec.name}": ${refusal.detail}`]);
          },
        );
        if (!judge)
          throw invalidBody([
            `graders: the judge of "${spec.name}", ${prompt}@${environment}${version ? ` v${version}` : ''}, is not deployed`,
          ]);
      }
    return specs;
  }

  private async storedTarget(caller: ProjectPrincipal, target: CreateRunBody['target']): Promise<StoredTarget> {
    if ('draft' in target) return { type: 'draft', prompt: target.prompt ?? null, draft: target.draft };
    if ('version' in target) return { type: 'version', prompt: target.prompt, version: target.version };
    // An environment's live version, fixed now: a deploy during the run does not change what it measures.
    const live = await ifArchived(this.registry.resolveForInvoke(caller.projectId, target.prompt, target.environment), (refusal) => {
      throw invalidBody([`target: ${refusal.detail}`]);
    });
    if (!live) throw invalidBody([`target: "${target.prompt}" is not deployed in "${target.environment}"`]);
    return { type: 'version', prompt: target.prompt, version: live.version, environment: target.environment };
  }
}

function describeTarget(target: StoredTarget): string {
  return target.type === 'version' ? `${target.prompt} v${target.version}` : `draft${target.prompt ? ` of ${target.prompt}` : ''}`;
}
