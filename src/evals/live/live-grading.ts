import { Injectable, Logger } from '@nestjs/common';

import type { ProjectPrincipal } from '../../auth/principal';
import { FeedbackService, GRADER_SOURCE } from '../../feedback/feedback.service';
import { LiveGradeRequest, liveGraderProblem } from '../../project-settings/live-graders';
import { type ChatCompletion, fromAnthropicMessage } from '../../providers';
import { RequestLogEntity } from '../../request-logs/request-log.entity';
import { RequestLogsService } from '../../request-logs/request-logs.service';
import type { GradedOutput, GraderSpec, GraderType } from '../graders/grader.schema';
import { GradersRepository } from '../graders/graders.repository';
import { Grading, type GradingContext, scoreOf } from '../graders/grading';

/** The environment live graders' judges are logged under: usage shows their spend as one line (docs/experiments.md, "Live graders"). */
export const LIVE_GRADERS_ENVIRONMENT = 'live-graders';

/** Types whose score is always 0 or 1: stored as true/false, so results give them a share with a Wilson interval. */
const PASS_FAIL: ReadonlySet<GraderType> = new Set(['equals', 'regex', 'json_schema', 'json_path', 'tool_call', 'latency', 'cost']);

/**
 * Scores one sampled call with the graders its job names (docs/experiments.md, "Live graders"):
 * reads the call's log (its answer, latency and cost), grades it with the graders as stored now
 * through the same Grading as experiment runs, and stores each score as feedback on the log, with
 * source `grader` and the grader's name, in one transaction. A grader deleted since, or changed
 * into one a live call cannot satisfy, and a judge that could not be asked, store nothing (logged).
 */
@Injectable()
export class LiveGrading {
  private readonly logger = new Logger('LiveGraders');

  constructor(
    private readonly logs: RequestLogsService,
    private readonly graders: GradersRepository,
    private readonly grading: Grading,
    private readonly feedback: FeedbackService,
  ) {}

  async grade(projectId: string, logId: string, request: LiveGradeRequest, signal: AbortSignal): Promise<void> {
    const log = await this.logs.findStored(projectId, logId);
    if (!log || log.doNotRecord || !log.providerResponse) return this.skip(logId, 'its log is gone or holds no answer');
    const specs = await this.specsOf(projectId, logId, request.graders);
    if (specs.length === 0) return;
    const caller = projectCaller(projectId, request);
    const contextOf = (grader: string): GradingContext => ({
      environment: LIVE_GRADERS_ENVIRONMENT,
      metadata: { parley_live_log: logId, parley_live_grader: grader },
      // The graded call's log, where a person looks first.
      wire: { url: `/v2/logs/${logId}`, ip: undefined, requestId: undefined },
      signal,
    });
    const item = {
      variables: log.variables ?? {},
      messages: Array.isArray(log.requestData?.messages) ? (log.requestData.messages as unknown[]) : [],
      expected: undefined,
    };
    const output = outputOf(log);
    const results = await Promise.all(
      specs.map(async (spec) => {
        const result = await this.grading.gradeOne(caller, spec, item, output, contextOf(spec.name)).catch((err: unknown) => ({
          score: 0,
          reason: (err as Error).message,
          judged: false,
        }));
        if (!result.judged) this.skip(logId, `"${spec.name}" could not judge it: ${result.reason.slice(0, 200)}`);
        return result.judged ? { spec, score: scoreOf(spec, result) } : null;
      }),
    );
    if (signal.aborted) return;
    const entries = results
      .flatMap((result) => (result ? [result] : []))
      // One order for every job: concurrent jobs update the same rollups in the same order.
      .sort((a, b) => (a.spec.name < b.spec.name ? -1 : 1))
      .map(({ spec, score }) => ({
        name: spec.name,
        value: PASS_FAIL.has(spec.config.type) ? score.score === 1 : score.score,
        comment: score.reason,
      }));
    if (entries.length && !(await this.feedback.recordOnLog(projectId, logId, GRADER_SOURCE, entries))) this.skip(logId, 'its log is gone');
  }

  /** The job's graders as stored now; a deleted one, or one a live call cannot satisfy any more, is left out (logged). */
  private async specsOf(projectId: string, logId: string, names: string[]): Promise<GraderSpec[]> {
    const rows = await this.graders.findByNames(projectId, names);
    const specs: GraderSpec[] = [];
    for (const name of names) {
      const row = rows.find((r) => r.name === name);
      const problem = row
        ? liveGraderProblem(name, row.type, row.config as unknown as Record<string, unknown>)
        : `the grader "${name}" was deleted`;
      if (problem) this.skip(logId, problem);
      else specs.push({ name, threshold: Number(row!.threshold), config: row!.config });
    }
    return specs;
  }

  private skip(logId: string, why: string): void {
    this.logger.log(`live grading of log ${logId}: not scored, ${why}`);
  }
}

/** The project acting for itself, with no key: a judge's call counts against the project's limits and budgets, not an application key's. */
function projectCaller(projectId: string, request: LiveGradeRequest): ProjectPrincipal {
  return {
    kind: 'project',
    keyId: null,
    keyName: 'live-graders',
    scopes: null,
    environments: null,
    projectId,
    projectSlug: request.projectSlug,
    workspaceId: request.workspaceId,
    workspaceSlug: request.workspaceSlug,
  };
}

/** What the call answered, from its log: an OpenAI-shaped completion, or Anthropic's message as the provider returned it. */
function outputOf(log: RequestLogEntity): GradedOutput {
  const stored = log.providerResponse as Record<string, unknown>;
  const completion = (
    Array.isArray(stored.choices) ? stored : Array.isArray(stored.content) ? fromAnthropicMessage(stored as never) : { choices: [] }
  ) as ChatCompletion;
  const message = completion.choices[0]?.message;
  return {
    text: typeof message?.content === 'string' ? message.content : '',
    toolCalls: (message?.tool_calls ?? []).flatMap((call) =>
      'function' in call ? [{ name: call.function.name, arguments: call.function.arguments }] : [],
    ),
    latencyMs: log.latencyMs,
    costUsd: log.costUsd === null ? null : Number(log.costUsd),
    finishReason: completion.choices[0]?.finish_reason ?? null,
  };
}
