import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { AuditLog } from '../../audit/audit-log';
import { hasScope, ProjectPrincipal } from '../../auth/principal';
import { openaiError } from '../../common/errors';
import { newId } from '../../common/ids';
import { CreateTransaction } from '../../idempotency/create-transaction';
import { InvocationService } from '../../invocation/invocation.service';
import { RequestLogsService } from '../../request-logs/request-logs.service';
import type { DatasetItemInput } from '../datasets/dataset-item.schema';
import { DatasetsService } from '../datasets/datasets.service';
import { schemaValidator } from '../graders/checks';
import type { RunDto } from '../runs/run.dto';
import { RunsService } from '../runs/runs.service';
import { Refusal, targetOfModelName } from './criteria-check';
import { criterionSpec } from './criteria-grading';
import { asOpenAIError, evalNotFound, modelNotFound, outputItemNotFound, refused, runNotFound } from './openai-errors';
import { evalRunIdOf, isEvalId, isEvalRunId, itemIdOfOutputItem, listOf, runStatusOf, toOutputItem, toRun } from './openai-evals.mapper';
import { EvalRow, EvalRunRow, OpenAIEvalsRepository } from './openai-evals.repository';
import { CreateRunBody, outputItemListQuerySchema, parseQuery, runListQuerySchema, SourceRow } from './openai-evals.schemas';
import { planCompletions, planJsonl, ResolvedModel } from './run-plan';

export type OpenAIRun = ReturnType<typeof toRun>;

const badCursor = (what: string) =>
  openaiError(400, `Invalid value for 'after': expected the id of ${what}`, { param: 'after', code: 'invalid_value' });

/**
 * OpenAI's eval runs over experiment runs (docs/evals.md, "OpenAI's Evals API"): a run's rows
 * become a dataset of their own (named after the run), run as an experiment on the job queue with
 * the eval's testing criteria as its graders; reading, cancelling and the output items read the
 * experiment run and its items.
 */
@Injectable()
export class OpenAIEvalRunsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly evals: OpenAIEvalsRepository,
    private readonly runs: RunsService,
    private readonly datasets: DatasetsService,
    private readonly invocation: InvocationService,
    private readonly logs: RequestLogsService,
    private readonly audit: AuditLog,
  ) {}

  async create(caller: ProjectPrincipal, evalId: string, body: CreateRunBody, tx: CreateTransaction): Promise<OpenAIRun> {
    // Checked before the dataset is made (RunsService checks it again): a run calls models.
    if (!hasScope(caller, 'invoke')) throw openaiError(403, 'This API key lacks the invoke scope a run needs');
    const evalRow = await this.requireEval(caller.projectId, evalId);
    const source = body.data_source;
    if (source.type === 'responses')
      throw refused({ param: 'data_source.type', message: 'data_source of type "responses" is not supported: use jsonl or completions' });
    if (source.source.type !== 'file_content')
      throw refused({
        param: 'data_source.source.type',
        message: `source of type "${source.source.type}" is not supported: give the rows as file_content (Parley has no Files API and stores no completions)`,
      });
    const rows = source.source.content as SourceRow[];
    const rowRefusal = this.rowsRefusal(evalRow, rows, source.type);
    if (rowRefusal) throw refused(rowRefusal);
    const model = source.type === 'completions' ? await this.modelOf(caller, source.model) : null;
    const plan = source.type === 'jsonl' ? planJsonl(rows, 'data_source.source.content') : planCompletions(source, rows, model!);
    if ('param' in plan) throw refused(plan);

    const id = evalRunIdOf(newId());
    const dataset = await this.makeDataset(caller, id, plan.items);
    const modelName = source.type === 'completions' ? (source.model ?? null) : null;
    let answer: OpenAIRun | undefined;
    // The link is written in the run's transaction, and the answer is what an Idempotency-Key stores.
    const linking = async <T>(work: (manager: EntityManager) => Promise<T>): Promise<T> => {
      let made!: T;
      await tx.run(async (manager) => {
        made = await work(manager);
        const run = made as unknown as RunDto;
        const link: EvalRunRow = {
          id,
          eval_id: evalId,
          run_id: run.id,
          dataset_id: dataset.id,
          data_source: body.data_source as Record<string, unknown>,
          model: modelName,
          metadata: body.metadata ?? null,
          created_at: new Date(run.createdAt),
        };
        await this.evals.insertRun(manager, caller.projectId, link);
        answer = toRun(link, run);
        return answer;
      });
      return made;
    };
    try {
      await this.runs.create(
        caller,
        {
          name: body.name ?? `${modelName ?? 'given samples'} on ${evalRow.name || evalRow.id}`.slice(0, 200),
          dataset: id,
          target: plan.target,
          graders: evalRow.testing_criteria.map(criterionSpec),
          concurrency: 8,
          metadata: { openai_eval_id: evalId, openai_run_id: id },
        },
        { run: linking, runSingle: linking },
      );
    } catch (err) {
      // Nothing refers to the rows' dataset yet.
      await this.datasets.remove(caller, id).catch(() => undefined);
      throw asOpenAIError(err);
    }
    return answer!;
  }

  async list(caller: ProjectPrincipal, evalId: string, raw: Record<string, unknown>) {
    const query = parseQuery(runListQuerySchema, raw);
    await this.requireEval(caller.projectId, evalId);
    if (query.after !== undefined && !isEvalRunId(query.after)) throw badCursor('a run');
    const filter = { after: query.after ?? null, order: query.order, status: query.status ? runStatusOf(query.status) : null };
    const rows = await this.evals.listRuns(caller.projectId, evalId, filter, query.limit + 1);
    const data = await Promise.all(rows.slice(0, query.limit).map(async (link) => toRun(link, await this.runs.get(caller, link.run_id))));
    return listOf(data, rows.length > query.limit);
  }

  async get(caller: ProjectPrincipal, evalId: string, runId: string): Promise<OpenAIRun> {
    const link = await this.requireRun(caller.projectId, evalId, runId);
    return toRun(link, await this.runs.get(caller, link.run_id));
  }

  async cancel(caller: ProjectPrincipal, evalId: string, runId: string): Promise<OpenAIRun> {
    const link = await this.requireRun(caller.projectId, evalId, runId);
    return toRun(link, await this.runs.cancel(caller, link.run_id));
  }

  async remove(caller: ProjectPrincipal, evalId: string, runId: string) {
    await this.discard(caller, await this.requireRun(caller.projectId, evalId, runId));
    return { object: 'eval.run.deleted', deleted: true, run_id: runId };
  }

  /** Every run of an eval, as `remove` does each (the eval is being deleted). */
  async discardAll(caller: ProjectPrincipal, evalId: string): Promise<void> {
    for (const link of await this.evals.allRuns(caller.projectId, evalId)) await this.discard(caller, link);
  }

  async outputItems(caller: ProjectPrincipal, evalId: string, runId: string, raw: Record<string, unknown>) {
    const query = parseQuery(outputItemListQuerySchema, raw);
    const link = await this.requireRun(caller.projectId, evalId, runId);
    const evalRow = await this.requireEval(caller.projectId, evalId);
    const after = query.after === undefined ? null : itemIdOfOutputItem(query.after);
    if (query.after !== undefined && after === null) throw badCursor('an output item');
    const filter = { after, order: query.order, status: query.status ?? null };
    const rows = await this.evals.outputItems(caller.projectId, link, filter, query.limit + 1);
    const page = rows.slice(0, query.limit);
    const data = await Promise.all(
      page.map(async (row) => toOutputItem(link, evalRow.testing_criteria, row, await this.logOf(caller, link, row))),
    );
    return listOf(data, rows.length > query.limit);
  }

  async outputItem(caller: ProjectPrincipal, evalId: string, runId: string, outputItemId: string) {
    const link = await this.requireRun(caller.projectId, evalId, runId);
    const evalRow = await this.requireEval(caller.projectId, evalId);
    const itemId = itemIdOfOutputItem(outputItemId);
    const [row] = itemId
      ? await this.evals.outputItems(caller.projectId, link, { after: null, order: 'asc', status: null, itemId }, 1)
      : [];
    if (!row) throw outputItemNotFound(outputItemId);
    return toOutputItem(link, evalRow.testing_criteria, row, await this.logOf(caller, link, row));
  }

  /** The request log of an item's call: what it sent (a jsonl run's samples were given, not called). */
  private logOf(caller: ProjectPrincipal, link: EvalRunRow, row: { log_id: string | null }) {
    if (link.data_source.type === 'jsonl' || !row.log_id) return Promise.resolve(null);
    return this.logs.findStored(caller.projectId, row.log_id);
  }

  /** A run goes: its experiment is cancelled if still going (the experiment run stays in /v2 with its results), its rows' dataset is removed. */
  private async discard(caller: ProjectPrincipal, link: EvalRunRow): Promise<void> {
    const run = await this.runs.get(caller, link.run_id).catch(() => null);
    if (run && (run.status === 'queued' || run.status === 'running')) await this.runs.cancel(caller, link.run_id);
    await this.datasets.remove(caller, link.id).catch(() => undefined);
    await this.dataSource.transaction(async (manager) => {
      await this.evals.deleteRun(manager, caller.projectId, link.id);
      await this.audit.record(manager, {
        projectId: caller.projectId,
        action: 'openai_eval_run.deleted',
        resourceType: 'eval_run',
        resourceId: link.run_id,
        before: { openaiEval: link.eval_id, openaiRun: link.id },
      });
    });
  }

  /** The rows as one version of a dataset named after the run, in one transaction. */
  private makeDataset(caller: ProjectPrincipal, name: string, items: DatasetItemInput[]) {
    return this.dataSource.transaction(async (manager) => {
      const inTransaction: CreateTransaction = { run: (work) => work(manager), runSingle: (work) => work(manager) };
      const dataset = await this.datasets.create(caller, { name, description: `The rows of OpenAI eval run ${name}` }, inTransaction);
      await this.datasets.addItems(caller, name, { items }, inTransaction);
      return dataset;
    });
  }

  /** Every row's item against the eval's item_schema; a jsonl row's sample when the eval includes the sample schema. */
  private rowsRefusal(evalRow: EvalRow, rows: SourceRow[], type: 'jsonl' | 'completions'): Refusal | null {
    const validate = schemaValidator(evalRow.data_source_config.item_schema);
    for (const [i, row] of rows.entries()) {
      const at = `data_source.source.content[${i}]`;
      if (!validate(row.item)) {
        const error = validate.errors?.[0];
        const problem = error ? `${error.instancePath || '/'} ${error.message ?? 'is invalid'}` : 'is invalid';
        return { param: `${at}.item`, message: `The item does not match the eval's item_schema: ${problem}` };
      }
      if (type === 'jsonl' && evalRow.data_source_config.include_sample_schema && row.sample === undefined)
        return {
          param: `${at}.sample`,
          message: "The eval's data source includes the sample schema: each row of a jsonl run needs its sample",
        };
    }
    return null;
  }

  private async modelOf(caller: ProjectPrincipal, model: string | undefined): Promise<ResolvedModel> {
    if (!model)
      throw refused({ param: 'data_source.model', message: 'A completions run needs a model: <slug>@<environment> or <provider>/<model>' });
    const named = targetOfModelName(model);
    const target = named ? await this.invocation.resolve(caller, named) : null;
    if (!named || !target) throw modelNotFound(model, 'data_source.model');
    if (named.type === 'provider') return named;
    return { ...named, declaredVariables: target.deployment?.declaredVariables ?? [] };
  }

  private async requireEval(projectId: string, id: string): Promise<EvalRow> {
    const row = isEvalId(id) ? await this.evals.findEval(projectId, id) : null;
    if (!row) throw evalNotFound(id);
    return row;
  }

  private async requireRun(projectId: string, evalId: string, id: string): Promise<EvalRunRow> {
    const row = isEvalId(evalId) && isEvalRunId(id) ? await this.evals.findRun(projectId, evalId, id) : null;
    if (row) return row;
    // The eval's 404 when it is the eval that is missing.
    await this.requireEval(projectId, evalId);
    throw runNotFound(id);
  }
}
