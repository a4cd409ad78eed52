import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import {
  ApiException,
  badRequest,
  forbidden,
  isMalformedJsonBody,
  isPlainObject,
  isUniqueViolation,
  malformedBodyReason,
  notFound,
} from '../common/errors';
import { CreateTransaction, plainTransaction } from '../idempotency/create-transaction';
import { LimitSettingsService } from '../limits/limit-settings.service';
import { fromLimitValuesDto } from '../limits/limits.mapper';
import { LimitsService } from '../limits/limits.service';
import { CredentialWriter, ProviderCredentialsService } from '../provider-credentials/provider-credentials.service';
import { requesterOf } from '../registry/deployments/deployment-requests.mapper';
import { DeploymentsService } from '../registry/deployments/deployments.service';
import { DeployGateRefused } from '../registry/environments/environment-gates';
import { DEFAULT_ENVIRONMENTS, EnvironmentsService } from '../registry/environments/environments.service';
import { PromptEntity } from '../registry/prompts/prompt.entity';
import { PromptsService } from '../registry/prompts/prompts.service';
import { VersionsService } from '../registry/prompts/versions.service';
import { RegistryCache } from '../registry-cache/registry-cache';
import { toOverrideValues } from '../usage/pricing/price-overrides.schema';
import { PricesService } from '../usage/pricing/prices.service';
import { WorkspacesService } from '../workspaces/workspaces.service';
import { ApplyAccess, assertMayApplyAccess } from './apply-access';
import type { ApplyCaller } from './apply-caller';
import { ApplyDeploys } from './apply-deploys';
import { ApplyEvals, gateReferenceIssues } from './apply-evals';
import { ApplyFile, ApplyFileResult, ApplyReferences, parseApplyText, validateApplyDocument } from './apply-file.parser';
import { INVALID_FILE } from './apply-file.schema';
import { ApplyLifecycle, ApplyOptions, rollingBack } from './apply-lifecycle';
import { deployReferenceIssues } from './apply-splits';
import { ApplySummary, hasChanges } from './apply-summary';

export type { ApplyCaller };
export { INVALID_FILE };

/** What the database holds for the file's project, read once inside the transaction before any write. */
interface ProjectState {
  workspaceExists: boolean;
  projectId: string | null;
  environments: Set<string>;
  providers: Set<string>;
  prompts: Map<string, PromptEntity>;
  datasets: Set<string>;
}

const MAX_ATTEMPTS = 5;

/** The admin key and the CLI on the database are the operator: they may lend any of the server's provider keys (docs/security.md). */
const writerOf = (caller: ApplyCaller): CredentialWriter =>
  caller.kind === 'admin' && caller.workspace === undefined ? 'operator' : 'project';

/** A workspace admin key naming another workspace: not found, as on every admin route. */
export function assertReachable(caller: ApplyCaller, workspace: string): void {
  if (caller.kind === 'admin' && caller.workspace !== undefined && caller.workspace !== workspace) throw notFound('Workspace not found');
}

/** A project key applies to its own project only; the admin key to any. */
function mayApply(caller: ApplyCaller, file: { workspace: string; project: string }): boolean {
  if (caller.kind === 'admin') return caller.workspace === undefined || caller.workspace === file.workspace;
  return caller.workspaceSlug === file.workspace && caller.projectSlug === file.project;
}

/**
 * `parley apply` and POST /v2/apply: makes the project match the file, declaratively and in one
 * transaction. The whole file is validated first (shape, templates, then references against the
 * database) and nothing is written if anything is wrong. Apply only adds, and restores an archived
 * prompt the file lists; with `prune` it also archives the prompts and deletes the environments the
 * file no longer lists (ApplyLifecycle), never providers, versions or deployments. A dry run rolls it all back.
 */
@Injectable()
export class ApplyService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly workspaces: WorkspacesService,
    private readonly environments: EnvironmentsService,
    private readonly credentials: ProviderCredentialsService,
    private readonly prompts: PromptsService,
    private readonly versions: VersionsService,
    private readonly deployments: DeploymentsService,
    private readonly cache: RegistryCache,
    private readonly limits: LimitsService,
    private readonly limitSettings: LimitSettingsService,
    private readonly prices: PricesService,
    private readonly evals: ApplyEvals,
    private readonly deploys: ApplyDeploys,
    private readonly access: ApplyAccess,
    private readonly lifecycle: ApplyLifecycle,
  ) {}

  /** The REST body: `{"yaml": "<file text>"}`, or the document itself as JSON. */
  applyBody(body: unknown, caller: ApplyCaller, tx?: CreateTransaction, options: ApplyOptions = {}): Promise<ApplySummary> {
    if (isPlainObject(body) && Object.keys(body).length === 1 && typeof body.yaml === 'string')
      return this.apply(parseApplyText(body.yaml), caller, undefined, tx, options);
    if (isMalformedJsonBody(body)) throw badRequest(INVALID_FILE, [`(file): ${malformedBodyReason(body)}`]);
    if (!isPlainObject(body)) {
      throw badRequest(INVALID_FILE, ['(file): expected a JSON object: the parley.yaml document, or {"yaml": "<file text>"}']);
    }
    return this.apply(validateApplyDocument(body), caller, undefined, tx, options);
  }

  applyText(text: string, caller: ApplyCaller, options: ApplyOptions = {}): Promise<ApplySummary> {
    return this.apply(parseApplyText(text), caller, undefined, undefined, options);
  }

  /** With `manager`, runs inside the caller's transaction (the first-run seed does). */
  applyDocument(document: unknown, caller: ApplyCaller, manager?: EntityManager): Promise<ApplySummary> {
    return this.apply(validateApplyDocument(document), caller, manager);
  }

  private async apply(
    result: ApplyFileResult,
    caller: ApplyCaller,
    manager?: EntityManager,
    tx?: CreateTransaction,
    options: ApplyOptions = {},
  ): Promise<ApplySummary> {
    if (!result.ok) {
      // Its references are checked too, so that one report holds every problem of the file.
      const references =
        result.references && mayApply(caller, result.references) ? await this.referenceIssues(result.references, caller, manager) : [];
      throw badRequest(INVALID_FILE, [...result.issues, ...references]);
    }
    const { file } = result;
    assertReachable(caller, file.workspace);
    if (!mayApply(caller, file)) throw forbidden('API key does not belong to this project');
    // Limits are the operator's: neither a project key nor a workspace admin key may lift its own.
    if (file.limits && writerOf(caller) !== 'operator') throw forbidden('Limits in parley.yaml can only be applied with the admin key');
    // Prices decide costs (and the budgets they are charged to): the operator's too.
    if (file.prices && writerOf(caller) !== 'operator') throw forbidden('Prices in parley.yaml can only be applied with the admin key');
    // Who holds which role is members:manage's (docs/apply.md, "Access").
    if (file.access) assertMayApplyAccess(caller.scopes, file.access, caller.environments);
    // A dry run meets every check a real one does, and rolls back (a refused deploy's audit event included).
    if (options.dryRun && !manager)
      return { ...(await this.inTransaction(file, caller, rollingBack(this.dataSource), options)).summary, dryRun: true };
    const { summary, projectId } = manager
      ? await this.execute(manager, file, caller, options)
      : await this.deployments.recordingRefusals(() => this.inTransaction(file, caller, tx ?? plainTransaction(this.dataSource), options));
    this.cache.invalidateProject(projectId);
    this.limits.forget(projectId);
    return summary;
  }

  /**
   * Two applies racing to create the same row: the loser's transaction is rolled back and it runs
   * again. In the route's CreateTransaction: an Idempotency-Key's outcome commits with the file.
   */
  private async inTransaction(
    file: ApplyFile,
    caller: ApplyCaller,
    tx: CreateTransaction,
    options: ApplyOptions,
  ): Promise<{ summary: ApplySummary; projectId: string }> {
    for (let attempt = 1; ; attempt++) {
      try {
        let projectId = '';
        const summary = await tx.run(async (manager) => {
          const executed = await this.execute(manager, file, caller, options);
          projectId = executed.projectId;
          return executed.summary;
        });
        return { summary, projectId };
      } catch (err) {
        // Services report a lost insert race as a 409 of their own; either way the state is re-read. A deploy gate's 409 is no race.
        const lostRace =
          isUniqueViolation(err) || (err instanceof ApiException && err.getStatus() === 409 && !(err instanceof DeployGateRefused));
        if (!lostRace || attempt >= MAX_ATTEMPTS) throw err;
      }
    }
  }

  /** Reads the project without a transaction of its own: nothing is written for an invalid file. */
  private async referenceIssues(references: ApplyReferences, caller: ApplyCaller, manager = this.dataSource.manager): Promise<string[]> {
    return this.check(references, await this.readState(manager, references), caller);
  }

  private async execute(
    manager: EntityManager,
    file: ApplyFile,
    caller: ApplyCaller,
    options: ApplyOptions = {},
  ): Promise<{ summary: ApplySummary; projectId: string }> {
    const state = await this.readState(manager, file);
    const issues = this.check(file.references, state, caller);
    if (issues.length > 0) throw badRequest(INVALID_FILE, issues);

    const summary: ApplySummary = {
      workspace: { slug: file.workspace, action: state.workspaceExists ? 'unchanged' : 'created' },
      project: { slug: file.project, action: state.projectId ? 'unchanged' : 'created' },
      environments: [],
      providers: [],
      prompts: [],
      deployments: [],
      graders: [],
      datasets: [],
      gates: [],
      changed: false,
    };
    if (!state.workspaceExists) await this.workspaces.createWorkspace({ slug: file.workspace }, manager);
    let projectId = state.projectId;
    if (!projectId) {
      projectId = (await this.workspaces.createProject(file.workspace, { slug: file.project }, manager)).id;
      for (const slug of DEFAULT_ENVIRONMENTS)
        if (!file.environments.includes(slug)) summary.environments.push({ slug, action: 'created' });
    }
    for (const slug of file.environments) {
      const exists = state.projectId ? state.environments.has(slug) : (DEFAULT_ENVIRONMENTS as readonly string[]).includes(slug);
      if (!exists) await this.environments.create(projectId, slug, manager);
      summary.environments.push({ slug, action: exists && state.projectId ? 'unchanged' : 'created' });
    }
    for (const declared of file.providers) {
      const action = await this.credentials.applyDeclared(projectId, declared, manager, writerOf(caller));
      // Refused inside the transaction: nothing of the file is kept.
      if (action !== 'unchanged' && caller.mayWriteProviders === false) {
        throw forbidden(`Changing provider "${declared.name}" needs an API key with the providers:write scope`);
      }
      summary.providers.push({ name: declared.name, action });
    }
    const environments = new Map((await this.environments.listEntities(projectId, manager)).map((e) => [e.slug, e]));
    // Before the deploys: a gate of the file applies to the file's own deploys (docs/apply.md, "Evaluations").
    Object.assign(summary, await this.evals.apply(manager, projectId, file, environments));
    for (const [index, { declared, prepared }] of file.prompts.entries()) {
      // Whether the provider can embed, and what routing targets can honour, is known only here, once the file's providers exist.
      const checked = declared.kind === 'embedding' || prepared.content.routing;
      const problems = checked ? await this.versions.providerProblems(projectId, declared.kind, prepared.content, manager) : [];
      const refused = problems.map((p) => file.references.describe(['prompts', index, ...p.path], p.message));
      if (refused.length > 0) throw badRequest(INVALID_FILE, refused);
      let prompt = state.prompts.get(declared.slug);
      const isNew = !prompt;
      prompt ??= await this.prompts.insert(projectId, declared.slug, declared.kind, manager);
      await this.prompts.lock(manager, prompt);
      // Listed, so live (docs/apply.md, "Pruning"): an archived one is restored before it is versioned or deployed.
      const restored = await this.lifecycle.restoreListed(manager, prompt);
      // Same content as any existing version (a revert included): that version, not a duplicate.
      let version = isNew ? null : await this.versions.findNewestByHash(projectId, prompt.id, prepared.contentHash, manager);
      const action = isNew ? 'created' : version ? 'unchanged' : 'versioned';
      version ??= await this.versions.insertPrepared(manager, prompt, prepared, 'parley apply');
      summary.prompts.push({ slug: prompt.slug, kind: prompt.kind, action, version: version.version, ...(restored ? { restored } : {}) });
      const target = { prompt, version, index, deploy: declared.deploy };
      const deployer = { mayDeploy: caller.mayDeploy !== false, requester: caller.requester ?? requesterOf(undefined) };
      const applied = await this.deploys.deploy(manager, target, environments, file.references.describe, deployer);
      summary.deployments.push(...applied.deployments);
      if (applied.requests.length > 0) (summary.deploymentRequests ??= []).push(...applied.requests);
    }
    const warnings = this.unsetApiKeyEnvs(file);
    if (warnings.length > 0) summary.warnings = warnings;
    if (file.limits) {
      await this.limitSettings.setForProject(
        projectId,
        { project: fromLimitValuesDto(file.limits.project), keys: fromLimitValuesDto(file.limits.keys) },
        manager,
      );
    }
    if (file.prices) await this.prices.replaceOverrides(projectId, toOverrideValues(file.prices), manager);
    if (file.access) summary.access = await this.access.apply(manager, projectId, file.access, caller.scopes);
    if (options.prune) summary.pruned = await this.lifecycle.prune(manager, projectId, file);
    summary.changed = hasChanges(summary);
    if (summary.changed) await this.cache.announce(projectId, manager);
    return { summary, projectId };
  }

  /** Providers whose apiKeyEnv names a variable this server does not have: their calls would go out without a key. */
  private unsetApiKeyEnvs(file: ApplyFile): string[] {
    return file.providers
      .filter((p) => p.apiKeyEnv && !this.credentials.isEnvSet(p.apiKeyEnv))
      .map(
        (p) =>
          `provider "${p.name}": ${p.apiKeyEnv} is not set on the server that serves this project; its calls go out without an API key until it is`,
      );
  }

  private async readState(manager: EntityManager, file: { workspace: string; project: string }): Promise<ProjectState> {
    const found = await this.workspaces.findProject(file.workspace, file.project, manager);
    const workspaceExists = found !== null || (await this.workspaces.findWorkspace(file.workspace, manager)) !== null;
    if (!found)
      return { workspaceExists, projectId: null, environments: new Set(), providers: new Set(), prompts: new Map(), datasets: new Set() };
    const projectId = found.project.id;
    // One after another: a transaction is one session, whose queries run one at a time anyway.
    const environments = await this.environments.listEntities(projectId, manager);
    const providers = await this.credentials.listEntities(projectId, manager);
    const prompts = await this.prompts.listAll(projectId, manager);
    const datasets = await this.evals.datasetNames(projectId, manager);
    return {
      workspaceExists,
      projectId,
      environments: new Set(environments.map((e) => e.slug)),
      providers: new Set(providers.map((p) => p.name)),
      prompts: new Map(prompts.map((p) => [p.slug, p])),
      datasets,
    };
  }

  /** References the file makes that neither the file nor the database satisfies; every one is reported. */
  private check(file: ApplyReferences, state: ProjectState, caller: ApplyCaller): string[] {
    const environments = new Set([...file.environments, ...state.environments, ...(state.projectId ? [] : DEFAULT_ENVIRONMENTS)]);
    const providers = new Set(['local', ...file.providerNames, ...state.providers]);
    const issues: string[] = [];
    file.providers.forEach(({ index, type, baseUrl, apiKeyEnv }) => {
      const problem =
        apiKeyEnv === undefined
          ? undefined
          : (this.credentials.apiKeyEnvProblem(apiKeyEnv) ?? this.credentials.bindingProblem(apiKeyEnv, type, baseUrl, writerOf(caller)));
      if (problem) issues.push(file.describe(['providers', index, 'apiKeyEnv'], problem));
    });
    file.prompts.forEach(({ index, slug, kind, provider, targetProviders }) => {
      const existing = slug === undefined ? undefined : state.prompts.get(slug);
      if (existing && kind !== undefined && existing.kind !== kind) {
        issues.push(
          file.describe(['prompts', index, 'kind'], `"${slug}" is an existing ${existing.kind}; the kind of a prompt cannot change`),
        );
      }
      const named = [
        { path: ['provider'], name: provider },
        ...targetProviders.map((name, i) => ({ path: ['routing', 'targets', i, 'provider'], name })),
      ];
      for (const { path, name } of named)
        if (name !== undefined && !providers.has(name))
          issues.push(file.describe(['prompts', index, ...path], `no provider "${name}": declare it under providers, or use "local"`));
    });
    return [
      ...issues,
      ...deployReferenceIssues(file, environments, state.prompts),
      ...gateReferenceIssues(file, environments, state.datasets),
    ];
  }
}
