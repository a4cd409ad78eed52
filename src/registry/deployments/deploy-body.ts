import { canonicalJson } from '../content/content-hash';
import { EnvironmentEntity } from '../environments/environment.entity';
import { PromptEntity } from '../prompts/prompt.entity';
import { PromptVersionEntity } from '../prompts/prompt-version.entity';
import { DeploymentEntity } from './deployment.entity';
import { DeploymentRow } from './deployments.repository';
import { DeployDto } from './dto/deployment.dto';
import { SplitGuard } from './guards';
import { DeploymentSplit } from './split';

/** The parts of a deploy that need no database: the body's cross-field rules, splits compared, rows shaped. */

/** What the body says that does not fit together (each field is valid on its own: the pipe checked it). */
export function splitBodyProblems(dto: DeployDto): string[] {
  if (!dto.split) {
    return (['stickyBy', 'rules', 'guards'] as const)
      .filter((field) => dto[field] !== undefined)
      .map((field) => `${field}: applies to a split only`);
  }
  const problems = dto.version !== undefined ? ['version: send either `version` or `split`, not both'] : [];
  const arms = new Set(dto.split.map((arm) => arm.version));
  (dto.rules ?? []).forEach((rule, index) => {
    if (!arms.has(rule.version)) problems.push(`rules.${index}.version: ${rule.version} is not an arm of the split`);
  });
  return problems;
}

/** A split as deployLocked writes it: its arms' versions (the control's first) and its guards. */
export type GuardedSplit = DeploymentSplit & { versions: PromptVersionEntity[]; guards?: SplitGuard[] | null };

/** Whether the current deployment already is this split, guards included (or, with none, a plain deployment). */
export function sameSplit(current: DeploymentEntity, split: GuardedSplit | null): boolean {
  if (!split) return current.split === null;
  return (
    canonicalJson([current.split, current.stickyBy, current.splitRules ?? [], current.guards]) ===
    canonicalJson([split.arms, split.stickyBy, split.rules, split.guards ?? null])
  );
}

/** A deployment just written, as listings show it. */
export function deploymentRowOf(d: DeploymentEntity, p: PromptEntity, e: EnvironmentEntity, v: PromptVersionEntity): DeploymentRow {
  return {
    id: d.id,
    prompt_id: p.id,
    slug: p.slug,
    kind: p.kind,
    environment: e.slug,
    version: v.version,
    version_id: v.id,
    deployment_version: d.deploymentVersion,
    deployed_at: d.deployedAt,
    replaced_at: d.replacedAt,
    split: d.split,
    sticky_by: d.stickyBy,
    split_rules: d.splitRules,
    guards: d.guards,
  };
}
