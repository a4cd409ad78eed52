import type { PromptEntity } from '../registry/prompts/prompt.entity';
import type { ApplyReferences, IssuePath } from './apply-file.parser';
import { FILE_VERSION, slugSchema } from './apply-file.schema';

/**
 * `deploy` in parley.yaml (docs/apply.md): an environment's slug deploys the file's content there;
 * `{environment, split, stickyBy?, rules?, guards?}` deploys a split whose arms name the prompt's existing
 * versions by number, or the file's own content as "file". Here: what entries refer to, checked
 * before anything is written; apply-deploys.ts deploys them.
 */

/** What one `deploy` entry refers to, read from whichever of its fields are valid. */
export interface DeployReference {
  /** Where its environment is written, below the prompt: `deploy[j]`, or a split's `deploy[j].environment`. */
  path: IssuePath;
  /** Undefined where the slug is not valid (reported on its own). */
  environment?: string;
  /** A split's arms that name a version by number. */
  versions: { path: IssuePath; version: number }[];
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The environment an entry names (a slug, or a split's `environment`) and where, valid or not: for the file's duplicate check. */
export function deployEnvironmentOf(entry: unknown, j: number): { value: unknown; path: IssuePath } {
  return isObject(entry) ? { value: entry.environment, path: ['deploy', j, 'environment'] } : { value: entry, path: ['deploy', j] };
}

/** A prompt entry's `deploy` references, whether or not the entry is valid. */
export function deployReferences(deploy: unknown): DeployReference[] {
  if (!Array.isArray(deploy)) return [];
  return deploy.map((entry, j) => {
    const { value, path } = deployEnvironmentOf(entry, j);
    const environment = slugSchema.safeParse(value).success ? (value as string) : undefined;
    const arms = isObject(entry) && Array.isArray(entry.split) ? entry.split : [];
    const versions = arms.flatMap((arm, k) => {
      const version = isObject(arm) ? arm.version : undefined;
      return typeof version === 'number' && Number.isInteger(version) && version >= 1
        ? [{ path: ['deploy', j, 'split', k, 'version'], version }]
        : [];
    });
    return { path, environment, versions };
  });
}

/** Environments neither the file nor the project has, and version numbers the prompt does not have. */
export function deployReferenceIssues(file: ApplyReferences, environments: Set<string>, prompts: Map<string, PromptEntity>): string[] {
  return file.prompts.flatMap(({ index, slug, deploy }) =>
    deploy.flatMap(({ path, environment, versions }) => {
      const issues: string[] = [];
      if (environment !== undefined && !environments.has(environment))
        issues.push(file.describe(['prompts', index, ...path], `no environment "${environment}": list it under environments`));
      const last = slug === undefined ? undefined : (prompts.get(slug)?.lastVersion ?? 0);
      for (const { path: at, version } of versions) {
        if (last === undefined || version <= last) continue;
        const has = last === 0 ? 'has no versions yet' : `has no version ${version} (its newest is ${last})`;
        issues.push(file.describe(['prompts', index, ...at], `"${slug}" ${has}; "${FILE_VERSION}" names the content of this file`));
      }
      return issues;
    }),
  );
}
