import { isMap, isPair, isScalar, isSeq } from 'yaml';

import { DeploymentRow } from '../registry/deployments/deployments.repository';
import { storedGuards } from '../registry/deployments/guards';
import { PromptEntity } from '../registry/prompts/prompt.entity';
import { FILE_VERSION } from './apply-file.schema';

/** A `deploy` entry as exported: an environment's slug, or a split whose arms name "file" where they run the file's version. */
export type ExportedDeploy =
  | string
  | { environment: string; split: { version: number | string; weight: number }[]; stickyBy: string; rules?: object[]; guards?: object[] };

/** Which version of a prompt the file shows (by number; its id when a deployment names it), and its `deploy` entries. */
export interface DeployedChoice {
  version: number;
  versionId?: string;
  deploy: ExportedDeploy[];
}

/**
 * A prompt deployed somewhere. Every split is written (its arms name any version); a plain
 * deployment only of the file's version, so the file shows the version most plain deployments run
 * (the newest on a tie), or, with splits only, the newest version an arm runs. Environments running
 * another version plainly are noted; apply leaves them as they are.
 */
export function chooseDeployed(prompt: PromptEntity, rows: DeploymentRow[], environments: string[], notes: string[]): DeployedChoice {
  const plain = rows.filter((row) => !row.split);
  const votes = new Map<number, number>();
  for (const row of plain) votes.set(Number(row.version), (votes.get(Number(row.version)) ?? 0) + 1);
  const armVersions = rows.flatMap((row) => (row.split ?? []).map((arm) => arm.version));
  const version = plain.length > 0 ? [...votes.entries()].sort(([a, x], [b, y]) => y - x || b - a)[0][0] : Math.max(...armVersions);
  const named = rows.find((row) => Number(row.version) === version);
  const order = (row: DeploymentRow) => environments.indexOf(row.environment);
  const deploy: ExportedDeploy[] = [];
  for (const row of [...rows].sort((a, b) => order(a) - order(b))) {
    if (row.split) deploy.push(splitEntry(row, version));
    else if (Number(row.version) === version) deploy.push(row.environment);
    else
      notes.push(
        `${prompt.slug}: ${row.environment} runs v${row.version}, not v${version} as in this file; apply leaves ${row.environment} as it is`,
      );
  }
  return { version, versionId: named?.version_id, deploy };
}

function splitEntry(row: DeploymentRow, fileVersion: number): ExportedDeploy {
  const named = (version: number) => (version === fileVersion ? FILE_VERSION : version);
  const rules = row.split_rules ?? [];
  return {
    environment: row.environment,
    split: row.split!.map((arm) => ({ version: named(arm.version), weight: arm.weight })),
    stickyBy: row.sticky_by ?? 'thread',
    ...(rules.length > 0 ? { rules: rules.map((rule) => ({ ...rule, version: named(rule.version) })) } : {}),
    // In the schema's key order (`metric` first), not jsonb's.
    ...(row.guards?.length ? { guards: storedGuards(row.guards)! } : {}),
  };
}

/** The key of a YAML pair, when it is a plain scalar. */
export const keyOf = (node: unknown): unknown => (isPair(node) && isScalar(node.key) ? node.key.value : undefined);

/** A split's arm, rule or guard (ancestors: `deploy` pair, its list, the entry, the `split`, `rules` or `guards` pair, its list): read best on one line. */
export function isSplitItem(ancestors: readonly unknown[]): boolean {
  const [deploy, list, entry, pair, items] = ancestors.slice(-5);
  return (
    keyOf(deploy) === 'deploy' &&
    isSeq(list) &&
    isMap(entry) &&
    ['split', 'rules', 'guards'].includes(keyOf(pair) as string) &&
    isSeq(items)
  );
}
