import { Column, Entity, PrimaryColumn } from 'typeorm';

import type { SplitGuard } from './guards';
import type { SplitArm, SplitRule, StickyBy } from './split';

/** One deployment of a prompt version to an environment; replaced ones stay as history. */
@Entity('deployments')
export class DeploymentEntity {
  @PrimaryColumn({ name: 'project_id', type: 'uuid' })
  projectId: string;

  @PrimaryColumn('uuid')
  id: string;

  @Column({ name: 'prompt_id', type: 'uuid' })
  promptId: string;

  @Column({ name: 'environment_id', type: 'uuid' })
  environmentId: string;

  @Column({ name: 'version_id', type: 'uuid' })
  versionId: string;

  /** 1 for the first deployment of this prompt to this environment, +1 for each redeployment. */
  @Column({ name: 'deployment_version', type: 'integer' })
  deploymentVersion: number;

  @Column({ name: 'deployed_at', type: 'timestamptz' })
  deployedAt: Date;

  /** Set when a later deployment replaced this one; null for the current deployment. */
  @Column({ name: 'replaced_at', type: 'timestamptz', nullable: true })
  replacedAt: Date | null;

  /** The arms of a split (docs/experiments.md, "Splits"), `versionId` the first's; null on a plain deployment. */
  @Column({ type: 'jsonb', nullable: true })
  split: SplitArm[] | null;

  @Column({ name: 'sticky_by', type: 'varchar', nullable: true })
  stickyBy: StickyBy | null;

  @Column({ name: 'split_rules', type: 'jsonb', nullable: true })
  splitRules: SplitRule[] | null;

  /** A split's guards (docs/experiments.md, "Guards"), defaults filled in; null when it has none. */
  @Column({ type: 'jsonb', nullable: true })
  guards: SplitGuard[] | null;
}
