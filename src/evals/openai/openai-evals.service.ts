import { randomUUID } from 'node:crypto';

import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { AuditLog } from '../../audit/audit-log';
import { ProjectPrincipal } from '../../auth/principal';
import { openaiError } from '../../common/errors';
import { newId } from '../../common/ids';
import { CreateTransaction } from '../../idempotency/create-transaction';
import { InvocationService } from '../../invocation/invocation.service';
import { schemaValidator } from '../graders/checks';
import type { Criterion } from './criteria';
import { criteriaRefusal, targetOfModelName } from './criteria-check';
import { evalNotFound, modelNotFound, refused } from './openai-errors';
import { OpenAIEvalRunsService } from './openai-eval-runs.service';
import { evalIdOf, isEvalId, listOf, toEval } from './openai-evals.mapper';
import { EvalRow, OpenAIEvalsRepository } from './openai-evals.repository';
import { CreateEvalBody, evalListQuerySchema, parseQuery, UpdateEvalBody } from './openai-evals.schemas';

const MAX_SCHEMA_CHARS = 50_000;

export type OpenAIEval = ReturnType<typeof toEval>;

/**
 * OpenAI's evals (docs/evals.md, "OpenAI's Evals API"): an eval is the definition its runs share,
 * the item schema their rows are checked against and the testing criteria they are graded by.
 * What cannot be graded is refused here, before anything is stored.
 */
@Injectable()
export class OpenAIEvalsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly evals: OpenAIEvalsRepository,
    private readonly runs: OpenAIEvalRunsService,
    private readonly invocation: InvocationService,
    private readonly audit: AuditLog,
  ) {}

  async create(caller: ProjectPrincipal, body: CreateEvalBody, tx: CreateTransaction): Promise<OpenAIEval> {
    const config = body.data_source_config;
    if (config.type !== 'custom')
      throw refused({
        param: 'data_source_config.type',
        message: `data_source_config of type "${config.type}" is not supported: Parley's evals take a custom item_schema, and their runs give their rows`,
      });
    const schemaProblem = this.schemaProblem(config.item_schema);
    if (schemaProblem) throw refused({ param: 'data_source_config.item_schema', message: schemaProblem });
    const refusal = criteriaRefusal(body.testing_criteria);
    if (refusal) throw refused(refusal);
    const criteria = body.testing_criteria.map((criterion) => ({ ...criterion, id: `${criterion.name}-${randomUUID()}` }) as Criterion);
    // A judge that cannot be called now is refused now, not failed on every item of every run.
    for (const [i, criterion] of criteria.entries())
      if (criterion.type === 'label_model' || criterion.type === 'score_model') {
        const target = await this.invocation.resolve(caller, targetOfModelName(criterion.model)!);
        if (!target) throw modelNotFound(criterion.model, `testing_criteria[${i}].model`);
      }
    const now = new Date();
    const row: EvalRow = {
      id: evalIdOf(newId()),
      name: body.name ?? '',
      data_source_config: { type: 'custom', item_schema: config.item_schema, include_sample_schema: config.include_sample_schema ?? false },
      testing_criteria: criteria,
      metadata: body.metadata ?? null,
      created_at: now,
      updated_at: now,
    };
    return tx.run(async (manager) => {
      await this.evals.insertEval(manager, caller.projectId, row);
      await this.audit.record(manager, {
        projectId: caller.projectId,
        action: 'openai_eval.created',
        // An eval is the graders (testing criteria) its runs share.
        resourceType: 'grader',
        resourceId: row.id,
        after: { name: row.name, testingCriteria: criteria.map((c) => ({ id: c.id, type: c.type })) },
      });
      return toEval(row);
    });
  }

  async list(caller: ProjectPrincipal, raw: Record<string, unknown>) {
    const query = parseQuery(evalListQuerySchema, raw);
    if (query.after !== undefined && !isEvalId(query.after))
      throw openaiError(400, "Invalid value for 'after': expected the id of an eval", { param: 'after', code: 'invalid_value' });
    const rows = await this.evals.listEvals(
      caller.projectId,
      { after: query.after ?? null, order: query.order, orderBy: query.order_by },
      query.limit + 1,
    );
    return listOf(rows.slice(0, query.limit).map(toEval), rows.length > query.limit);
  }

  async get(caller: ProjectPrincipal, id: string): Promise<OpenAIEval> {
    return toEval(await this.require(caller.projectId, id));
  }

  async update(caller: ProjectPrincipal, id: string, body: UpdateEvalBody): Promise<OpenAIEval> {
    return this.dataSource.transaction(async (manager) => {
      const before = await this.require(caller.projectId, id, manager);
      await this.evals.updateEval(manager, caller.projectId, id, body);
      const after = (await this.evals.findEval(caller.projectId, id, manager))!;
      await this.audit.record(manager, {
        projectId: caller.projectId,
        action: 'openai_eval.updated',
        // An eval is the graders (testing criteria) its runs share.
        resourceType: 'grader',
        resourceId: id,
        before: { name: before.name, metadata: before.metadata },
        after: { name: after.name, metadata: after.metadata },
      });
      return toEval(after);
    });
  }

  /** The eval and its runs: each run's experiment is cancelled if it is still going and its dataset removed (docs/evals.md). */
  async remove(caller: ProjectPrincipal, id: string) {
    await this.require(caller.projectId, id);
    await this.runs.discardAll(caller, id);
    await this.dataSource.transaction(async (manager) => {
      if (!(await this.evals.findEval(caller.projectId, id, manager, true))) throw evalNotFound(id);
      await this.evals.deleteEval(manager, caller.projectId, id);
      await this.audit.record(manager, {
        projectId: caller.projectId,
        action: 'openai_eval.deleted',
        // An eval is the graders (testing criteria) its runs share.
        resourceType: 'grader',
        resourceId: id,
      });
    });
    return { object: 'eval.deleted', deleted: true, eval_id: id };
  }

  private async require(projectId: string, id: string, manager?: Parameters<OpenAIEvalsRepository['findEval']>[2]): Promise<EvalRow> {
    const row = isEvalId(id) ? await this.evals.findEval(projectId, id, manager, manager !== undefined) : null;
    if (!row) throw evalNotFound(id);
    return row;
  }

  /** Why `schema` cannot check the rows of a run (too large, or not a JSON Schema Ajv compiles), or null. */
  private schemaProblem(schema: Record<string, unknown>): string | null {
    if (JSON.stringify(schema).length > MAX_SCHEMA_CHARS) return `item_schema is longer than ${MAX_SCHEMA_CHARS} characters`;
    try {
      schemaValidator(schema);
      return null;
    } catch (err) {
      return `item_schema is not a JSON Schema Parley can check rows with: ${(err as Error).message.slice(0, 300)}`;
    }
  }
}
