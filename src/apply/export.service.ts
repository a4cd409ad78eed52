import { Injectable } from '@nestjs/common';
import { Document, isMap, isScalar, isSeq, visit } from 'yaml';

import { grants } from '../auth/scopes';
import { badRequest, forbidden } from '../common/errors';
import { redactBaseUrl } from '../common/http/redact-url';
import { LimitSettingsService } from '../limits/limit-settings.service';
import { LimitValues } from '../limits/limits.types';
import { ProviderCredentialsService } from '../provider-credentials/provider-credentials.service';
import { Routing } from '../registry/content/routing.schema';
import { DeploymentsService } from '../registry/deployments/deployments.service';
import { EnvironmentsService } from '../registry/environments/environments.service';
import { PromptEntity } from '../registry/prompts/prompt.entity';
import { PromptVersionEntity } from '../registry/prompts/prompt-version.entity';
import { PromptsService } from '../registry/prompts/prompts.service';
import { VersionsService } from '../registry/prompts/versions.service';
import { WorkspacesService } from '../workspaces/workspaces.service';
import { assertReachable } from './apply.service';
import { ApplyAccess } from './apply-access';
import type { ApplyCaller } from './apply-caller';
import { chooseDeployed, ExportedDeploy, isSplitItem, keyOf } from './export-deploys';
import { ExportEvals, sortedKeys } from './export-evals';

/** A routing block's target (ancestors: the `routing` pair, its map, the `targets` pair, its list). */
function isRoutingTarget(ancestors: readonly unknown[]): boolean {
  const [routing, block, targets, list] = ancestors.slice(-4);
  return keyOf(routing) === 'routing' && isMap(block) && keyOf(targets) === 'targets' && isSeq(list);
}

/** A stored routing block in the order docs/routing.md writes it (the database keeps JSON keys in an order of its own). */
function routingForFile({ strategy, targets, fallbackOn, firstTokenTimeoutMs }: Routing): Routing {
  return {
    strategy,
    targets: targets.map(({ provider, model, weight, parameters }) => ({
      provider,
      model,
      ...(weight === undefined ? {} : { weight }),
      ...(parameters ? { parameters: sortedKeys(parameters) } : {}),
    })),
    fallbackOn,
    ...(firstTokenTimeoutMs === undefined ? {} : { firstTokenTimeoutMs }),
  };
}

/** Which version of a prompt the file shows, and where it is deployed. */
interface Choice {
  versionId: string;
  deploy: ExportedDeploy[];
}

/**
 * `parley export`: the project's prompts and assistants as deployed, with its graders, datasets,
 * deploy gates and the roles its `access` block gave, as a parley.yaml that applies as a no-op. A file holds one version per prompt: the one deployed to the most environments (the
 * newest on a tie), or the newest version when it is deployed nowhere. Environments running
 * another version are named in a comment at the top; apply leaves them as they are.
 */
@Injectable()
export class ExportService {
  constructor(
    private readonly workspaces: WorkspacesService,
    private readonly environments: EnvironmentsService,
    private readonly credentials: ProviderCredentialsService,
    private readonly prompts: PromptsService,
    private readonly versions: VersionsService,
    private readonly deployments: DeploymentsService,
    private readonly limitSettings: LimitSettingsService,
    private readonly evals: ExportEvals,
    private readonly access: ApplyAccess,
  ) {}

  /** GET /v2/export: a project key exports its own project unless told otherwise; the admin must name one. */
  exportFor(caller: ApplyCaller, workspace?: string, project?: string): Promise<string> {
    if (caller.kind === 'project') return this.exportProject(workspace ?? caller.workspaceSlug, project ?? caller.projectSlug, caller);
    if (!workspace || !project) throw badRequest('Invalid request parameters', ['workspace and project are required with the admin key']);
    return this.exportProject(workspace, project, caller);
  }

  async exportProject(workspaceSlug: string, projectSlug: string, caller: ApplyCaller): Promise<string> {
    assertReachable(caller, workspaceSlug);
    if (caller.kind === 'project' && (caller.workspaceSlug !== workspaceSlug || caller.projectSlug !== projectSlug)) {
      throw forbidden('API key does not belong to this project');
    }
    const { project } = await this.workspaces.requireProject(workspaceSlug, projectSlug);
    const environmentRows = await this.environments.listEntities(project.id);
    const environments = environmentRows.map((e) => e.slug);
    const credentials = await this.credentials.listEntities(project.id);
    const prompts = await this.prompts.listAll(project.id);
    const current = await this.deployments.currentRows(project.id);
    const notes: string[] = [];

    const choices = new Map<string, Choice>();
    for (const prompt of prompts) {
      // Applying a file that lists it would restore it (docs/apply.md, "Pruning"): the export leaves it archived.
      if (prompt.archivedAt) {
        notes.push(`${prompt.slug}: archived, so it is not in this file`);
        continue;
      }
      const rows = current.filter((d) => d.prompt_id === prompt.id);
      if (rows.length > 0) {
        const { version, versionId, deploy } = chooseDeployed(prompt, rows, environments, notes);
        // A version only a split's arm runs is found by its number.
        const id = versionId ?? (await this.versions.findByNumber(project.id, prompt.id, version))?.id;
        if (id) choices.set(prompt.id, { versionId: id, deploy });
      } else if (prompt.lastVersion > 0) {
        const latest = await this.versions.findByNumber(project.id, prompt.id, prompt.lastVersion);
        if (latest) choices.set(prompt.id, { versionId: latest.id, deploy: [] });
      } else {
        notes.push(`${prompt.slug}: has no versions yet, so it is not in this file`);
      }
    }
    const versions = new Map(
      (
        await this.versions.listByIds(
          project.id,
          [...choices.values()].map((c) => c.versionId),
        )
      ).map((v) => [v.id, v]),
    );
    // An undeployed prompt whose newest version names a since-deleted provider could not be applied back.
    const providerNames = new Set(['local', ...credentials.map((c) => c.name)]);
    for (const prompt of prompts) {
      const version = choices.has(prompt.id) ? versions.get(choices.get(prompt.id)!.versionId) : undefined;
      const missing =
        version && [version.provider, ...(version.routing?.targets ?? []).map((t) => t.provider)].find((p) => !providerNames.has(p));
      if (version && missing) {
        notes.push(`${prompt.slug}: v${version.version} uses provider "${missing}", which no longer exists, so it is not in this file`);
        choices.delete(prompt.id);
      }
    }
    for (const c of credentials) {
      if (c.apiKeyCiphertext) notes.push(`provider "${c.name}": its API key is stored (encrypted) in Parley and is not part of this file`);
    }

    const providers = credentials.map((c) => ({
      name: c.name,
      type: c.type,
      // Shown redacted, as everywhere: a URL stored with credentials before they were refused (docs/security.md, "Provider base URLs").
      ...(c.baseUrl ? { baseUrl: redactBaseUrl(c.baseUrl) } : {}),
      ...(c.apiKeyEnv ? { apiKeyEnv: c.apiKeyEnv } : {}),
    }));
    // Limits only in the admin's export: a project key could not apply them back.
    const limits = caller.kind === 'admin' && caller.workspace === undefined ? await this.limitsSection(project.id) : undefined;
    const evals = await this.evals.sections(project.id, environmentRows, notes);
    // Who holds which role only for a caller who could apply it back (members:manage): it names people.
    const mayManageMembers = caller.scopes === undefined || grants(caller.scopes, ['members:manage']);
    const access = mayManageMembers ? await this.access.section(project.id, notes) : undefined;
    const doc = new Document({
      workspace: workspaceSlug,
      project: projectSlug,
      environments,
      ...(providers.length > 0 ? { providers } : {}),
      ...(limits ? { limits } : {}),
      ...(access ? { access } : {}),
      prompts: prompts
        .filter((p) => choices.has(p.id))
        .map((p) => this.entry(p, versions.get(choices.get(p.id)!.versionId)!, choices.get(p.id)!.deploy)),
      ...evals,
    });
    // Lists of plain names read best on one line: `deploy: [staging, production]`.
    visit(doc, {
      Seq: (_, node) => void (isSeq(node) && node.items.every(isScalar) && (node.flow = true)),
      // And a split's arms and rules one per line: `- { version: 3, weight: 90 }`.
      // And a routing block's targets, as the block is written: `- { provider: openai, model: gpt-4o-mini }`.
      Map: (_, node, path) => void ((isSplitItem(path) || isRoutingTarget(path)) && (node.flow = true)),
    });
    doc.commentBefore = [
      ` Exported from Parley: ${workspaceSlug}/${projectSlug}, as deployed. Apply it with: parley apply -f <this file>`,
      ...notes.map((n) => ` note: ${n}`),
    ].join('\n');
    return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
  }

  private async limitsSection(projectId: string): Promise<Record<string, Partial<LimitValues>> | undefined> {
    const { project, keys } = await this.limitSettings.valuesOf(projectId);
    const set = (values: LimitValues | undefined) => values && Object.fromEntries(Object.entries(values).filter(([, v]) => v !== null));
    const section = { ...(project ? { project: set(project) } : {}), ...(keys ? { keys: set(keys) } : {}) };
    return Object.keys(section).length > 0 ? section : undefined;
  }

  private entry(prompt: PromptEntity, version: PromptVersionEntity, deploy: ExportedDeploy[]): Record<string, unknown> {
    return {
      slug: prompt.slug,
      kind: prompt.kind,
      // With a routing block, provider and model are its first target's: the block says them.
      ...(version.routing ? { routing: routingForFile(version.routing) } : { provider: version.provider, model: version.model }),
      ...(Object.keys(version.parameters).length > 0 ? { parameters: sortedKeys(version.parameters) } : {}),
      ...(version.tools.length > 0 ? { tools: version.tools } : {}),
      ...(Object.keys(version.variables).length > 0 ? { variables: sortedKeys(version.variables) } : {}),
      // An embedding entry has none (prepareVersionContent refuses one).
      ...(prompt.kind === 'embedding' ? {} : { template: version.template }),
      ...(version.responseCache ? { cache: version.responseCache } : {}),
      deploy,
    };
  }
}
