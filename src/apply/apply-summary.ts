import { ApiProperty } from '@nestjs/swagger';

import { Role, ROLES } from '../auth/roles';
import { openApiSchemaOf } from '../common/swagger/zod-schema';
import { guardsSchema, SplitGuard } from '../registry/deployments/guards';
import { SplitArm, SplitRule, splitRulesSchema, splitSchema, StickyBy } from '../registry/deployments/split';
import { PROMPT_KINDS, PromptKind } from '../registry/resolved-deployment';

/** What `parley apply` did, item by item: the `--json` output and the POST /v2/apply response. */
export type CreateAction = 'created' | 'unchanged';

class SlugAction {
  @ApiProperty({ example: 'acme' }) slug: string;
  @ApiProperty({ enum: ['created', 'unchanged'] }) action: CreateAction;
}

class ProviderAction {
  @ApiProperty({ example: 'openai' }) name: string;
  @ApiProperty({ enum: ['created', 'updated', 'unchanged'] }) action: 'created' | 'updated' | 'unchanged';
}

class PromptAction {
  @ApiProperty({ example: 'summarize' }) slug: string;
  @ApiProperty({ enum: PROMPT_KINDS }) kind: PromptKind;
  @ApiProperty({ enum: ['created', 'versioned', 'unchanged'], description: 'versioned: the content changed, so a new version was made' })
  action: 'created' | 'versioned' | 'unchanged';
  @ApiProperty({ example: 2, description: 'the version whose content matches the file' }) version: number;
  @ApiProperty({
    required: false,
    enum: [true],
    description: 'it was archived, and the file lists it: restored (docs/apply.md, "Pruning")',
  })
  restored?: true;
}

export class DeploymentAction {
  @ApiProperty({ example: 'summarize' }) slug: string;
  @ApiProperty({ example: 'production' }) environment: string;
  @ApiProperty({ example: 2, description: "the version deployed; a split's first arm (its control)" }) version: number;
  @ApiProperty({ example: 3 }) deploymentVersion: number;
  @ApiProperty({ enum: ['deployed', 'unchanged'] }) action: 'deployed' | 'unchanged';
  @ApiProperty({ ...openApiSchemaOf(splitSchema), required: false, description: "a split's arms, each with its version number" })
  split?: SplitArm[];
  @ApiProperty({ type: String, required: false, example: 'thread' }) stickyBy?: StickyBy;
  @ApiProperty({ ...openApiSchemaOf(splitRulesSchema), required: false }) rules?: SplitRule[];
  @ApiProperty({ ...openApiSchemaOf(guardsSchema), required: false, description: "a split's guards, when it has any" })
  guards?: SplitGuard[];
}

/** A deploy entry held for approval in a protected environment (docs/security.md, "Approvals"). */
export class DeploymentRequestAction {
  @ApiProperty({ format: 'uuid', description: 'the pending deployment request (GET /v2/deployment-requests/{id})' }) id: string;
  @ApiProperty({ example: 'summarize' }) slug: string;
  @ApiProperty({ example: 'production' }) environment: string;
  @ApiProperty({ example: 2, description: "the version asked for; a split's first arm (its control)" }) version: number;
  @ApiProperty({ enum: ['created', 'unchanged'], description: 'unchanged: the identical request was pending already' })
  action: 'created' | 'unchanged';
  @ApiProperty({ ...openApiSchemaOf(splitSchema), required: false, description: "a split's arms, each with its version number" })
  split?: SplitArm[];
}

class GraderAction {
  @ApiProperty({ example: 'mentions-city' }) name: string;
  @ApiProperty({ enum: ['created', 'updated', 'unchanged'] }) action: 'created' | 'updated' | 'unchanged';
}

class DatasetAction {
  @ApiProperty({ example: 'support-questions' }) name: string;
  @ApiProperty({
    enum: ['created', 'versioned', 'updated', 'unchanged'],
    description:
      'versioned: the items differ from the file, so one new version holds the declared ones; updated: only the description changed',
  })
  action: 'created' | 'versioned' | 'updated' | 'unchanged';
  @ApiProperty({ example: 2, description: "the dataset's version after apply" }) version: number;
  @ApiProperty({ example: 40 }) itemCount: number;
  @ApiProperty({ required: false, description: 'versioned: items of the file not in the dataset, added' }) added?: number;
  @ApiProperty({ required: false, description: 'versioned: items of the dataset not in the file, removed from the new version' })
  removed?: number;
}

class GateAction {
  @ApiProperty({ example: 'production' }) environment: string;
  @ApiProperty({ example: 'support-questions' }) dataset: string;
  @ApiProperty({ enum: ['created', 'updated', 'unchanged'] }) action: 'created' | 'updated' | 'unchanged';
}

type AccessActionName = 'created' | 'updated' | 'unchanged' | 'removed';
const ACCESS_ACTIONS = ['created', 'updated', 'unchanged', 'removed'];

class GroupAccessAction {
  @ApiProperty({ example: 'support-leads' }) group: string;
  @ApiProperty({ enum: ROLES, description: 'the role given; for `removed`, the role it had' }) role: Role;
  @ApiProperty({ enum: ACCESS_ACTIONS, description: 'removed: made by an earlier apply, no longer in the file' })
  action: AccessActionName;
}

class MemberAccessAction {
  @ApiProperty({ example: 'ana@example.com' }) email: string;
  @ApiProperty({ enum: ROLES, description: 'the role given; for `removed`, the role it had' }) role: Role;
  @ApiProperty({ enum: ACCESS_ACTIONS, description: 'removed: made by an earlier apply, no longer in the file' })
  action: AccessActionName;
}

/** docs/apply.md, "Access": present when the file has an `access` block. */
export class AccessSummary {
  @ApiProperty({ type: [GroupAccessAction] }) groups: GroupAccessAction[];
  @ApiProperty({ type: [MemberAccessAction] }) members: MemberAccessAction[];
}

class PrunedPrompt {
  @ApiProperty({ example: 'old-summary' }) slug: string;
  @ApiProperty({ enum: PROMPT_KINDS }) kind: PromptKind;
  @ApiProperty({
    enum: ['archived', 'kept'],
    description: 'kept: it is still deployed (`reason` says where); undeploy it, then prune again',
  })
  action: 'archived' | 'kept';
  @ApiProperty({ required: false, description: 'why it was kept' }) reason?: string;
}

class PrunedEnvironment {
  @ApiProperty({ example: 'qa' }) slug: string;
  @ApiProperty({
    enum: ['deleted', 'kept'],
    description: 'kept: it runs a prompt, is protected, or has pending deployment requests (`reason`)',
  })
  action: 'deleted' | 'kept';
  @ApiProperty({ required: false, description: 'why it was kept' }) reason?: string;
}

/** `parley apply --prune` (docs/apply.md, "Pruning"): what the project has that the file no longer lists. */
export class PruneSummary {
  @ApiProperty({ type: [PrunedPrompt], description: 'live prompts, assistants and embedding entries the file does not list' })
  prompts: PrunedPrompt[];
  @ApiProperty({ type: [PrunedEnvironment], description: 'environments the file neither lists nor deploys to nor gates' })
  environments: PrunedEnvironment[];
}

export class ApplySummaryDto {
  @ApiProperty({ type: SlugAction }) workspace: SlugAction;
  @ApiProperty({ type: SlugAction }) project: SlugAction;
  @ApiProperty({ type: [SlugAction] }) environments: SlugAction[];
  @ApiProperty({ type: [ProviderAction] }) providers: ProviderAction[];
  @ApiProperty({ type: [PromptAction] }) prompts: PromptAction[];
  @ApiProperty({ type: [DeploymentAction] }) deployments: DeploymentAction[];
  @ApiProperty({
    type: [DeploymentRequestAction],
    required: false,
    description: 'deploys to environments that require approval: each waits as a pending deployment request (present when there is one)',
  })
  deploymentRequests?: DeploymentRequestAction[];
  @ApiProperty({ type: [GraderAction] }) graders: GraderAction[];
  @ApiProperty({ type: [DatasetAction] }) datasets: DatasetAction[];
  @ApiProperty({ type: [GateAction] }) gates: GateAction[];
  @ApiProperty({ type: AccessSummary, required: false, description: "the project's roles, when the file has an `access` block" })
  access?: AccessSummary;
  @ApiProperty({
    type: PruneSummary,
    required: false,
    description: 'with `prune=true` (`parley apply --prune`): what was archived or deleted, or kept and why',
  })
  pruned?: PruneSummary;
  @ApiProperty({
    required: false,
    enum: [true],
    description: 'with `dryRun=true` (`parley apply --dry-run`): this is what applying would do; nothing was written',
  })
  dryRun?: true;
  @ApiProperty({ description: 'false when the database already matched the file (on a dry run: would change)' }) changed: boolean;
  @ApiProperty({
    required: false,
    type: [String],
    description: 'things applied that will not work yet, e.g. a provider whose apiKeyEnv is unset on this server',
  })
  warnings?: string[];
}

export type ApplySummary = ApplySummaryDto;

/** Whether anything in the summary changed the project (a pruned item kept, or a request found pending again, did not). */
export function hasChanges(summary: ApplySummary): boolean {
  const items = [
    summary.workspace,
    summary.project,
    ...summary.environments,
    ...summary.providers,
    ...summary.prompts,
    ...summary.deployments,
    ...(summary.deploymentRequests ?? []),
    ...summary.graders,
    ...summary.datasets,
    ...summary.gates,
    ...(summary.access ? [...summary.access.groups, ...summary.access.members] : []),
    ...(summary.pruned ? [...summary.pruned.prompts, ...summary.pruned.environments] : []),
  ];
  return items.some((item) => item.action !== 'unchanged' && item.action !== 'kept') || summary.prompts.some((p) => p.restored);
}

/** The human form of a summary: one line per change, or one line saying nothing changed. */
export function describeSummary(s: ApplySummary): string {
  const lines: string[] = [];
  if (s.workspace.action === 'created') lines.push(`  + workspace ${s.workspace.slug}`);
  if (s.project.action === 'created') lines.push(`  + project ${s.project.slug}`);
  for (const e of s.environments) if (e.action === 'created') lines.push(`  + environment ${e.slug}`);
  for (const p of s.providers)
    if (p.action !== 'unchanged') lines.push(`  ${p.action === 'created' ? '+' : '~'} provider ${p.name} (${p.action})`);
  for (const g of s.graders)
    if (g.action !== 'unchanged') lines.push(`  ${g.action === 'created' ? '+' : '~'} grader ${g.name} (${g.action})`);
  for (const d of s.datasets) {
    const items = `${d.itemCount} item${d.itemCount === 1 ? '' : 's'}`;
    if (d.action === 'created') lines.push(`  + dataset ${d.name} v${d.version} (${items})`);
    if (d.action === 'versioned') lines.push(`  ~ dataset ${d.name} v${d.version} (${items}: ${d.added} added, ${d.removed} removed)`);
    if (d.action === 'updated') lines.push(`  ~ dataset ${d.name} (description updated)`);
  }
  for (const g of s.gates)
    if (g.action !== 'unchanged')
      lines.push(`  ${g.action === 'created' ? '+' : '~'} gate of ${g.environment}: dataset ${g.dataset} (${g.action})`);
  const sign = { created: '+', updated: '~', removed: '-', unchanged: '' } as const;
  for (const g of s.access?.groups ?? [])
    if (g.action !== 'unchanged') lines.push(`  ${sign[g.action]} group ${g.group}: ${g.role} in this project (${g.action})`);
  for (const m of s.access?.members ?? [])
    if (m.action !== 'unchanged') lines.push(`  ${sign[m.action]} member ${m.email}: ${m.role} in this project (${m.action})`);
  for (const p of s.prompts) {
    if (p.restored) lines.push(`  + ${p.kind} ${p.slug} restored (it was archived)`);
    if (p.action === 'created') lines.push(`  + ${p.kind} ${p.slug} v${p.version}`);
    if (p.action === 'versioned') lines.push(`  ~ ${p.kind} ${p.slug} v${p.version} (content changed: new version)`);
  }
  for (const d of s.deployments) {
    if (d.action !== 'deployed') continue;
    if (!d.split) lines.push(`  > ${d.slug} v${d.version} deployed to ${d.environment} (deployment ${d.deploymentVersion})`);
    else {
      const arms = d.split.map((arm) => `v${arm.version}:${arm.weight}`).join(' ');
      const rules = d.rules?.length ? `; ${d.rules.length} rule${d.rules.length === 1 ? '' : 's'}` : '';
      const guards = d.guards?.length ? `; ${d.guards.length} guard${d.guards.length === 1 ? '' : 's'}` : '';
      lines.push(
        `  > ${d.slug} split ${arms} deployed to ${d.environment} (deployment ${d.deploymentVersion}; sticky by ${d.stickyBy}${rules}${guards})`,
      );
    }
  }
  // Deploys to environments that require approval (docs/security.md, "Approvals").
  const waiting = (s.deploymentRequests ?? []).map((r) => {
    const what = r.split ? `split ${r.split.map((arm) => `v${arm.version}:${arm.weight}`).join(' ')}` : `v${r.version}`;
    const already = r.action === 'unchanged' ? ', asked before' : '';
    return `  ? ${r.slug} ${what} to ${r.environment}: waiting for approval (deployment request ${r.id}${already})`;
  });
  lines.push(...prunedLines(s));
  const target = `${s.workspace.slug}/${s.project.slug}`;
  const kept = (s.pruned ? [...s.pruned.prompts, ...s.pruned.environments] : []).filter((item) => item.action === 'kept');
  const after = [...waiting, ...kept.map((item) => `  ! ${item.slug} kept: ${item.reason}`)];
  if (s.dryRun) {
    const head = `Dry run: nothing was written.`;
    if (!s.changed) return [`${head} ${target} already matches the file.`, ...after].join('\n');
    return [`${head} Applying would change ${target}:`, ...lines, ...after].join('\n');
  }
  if (!s.changed && after.length === 0) return `No changes: ${target} already matches the file.`;
  if (!s.changed) return [`No changes to ${target}${waiting.length > 0 ? '; still waiting for approval' : ''}:`, ...after].join('\n');
  return [`Applied to ${target}:`, ...lines, ...after].join('\n');
}

/** `--prune`'s changes: an archived prompt, a deleted environment. */
function prunedLines(s: ApplySummary): string[] {
  if (!s.pruned) return [];
  return [
    ...s.pruned.prompts.filter((p) => p.action === 'archived').map((p) => `  - ${p.kind} ${p.slug} archived (not in the file)`),
    ...s.pruned.environments.filter((e) => e.action === 'deleted').map((e) => `  - environment ${e.slug} deleted (not in the file)`),
  ];
}
