import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('environments')
export class EnvironmentEntity {
  @PrimaryColumn({ name: 'project_id', type: 'uuid' })
  projectId: string;

  @PrimaryColumn('uuid')
  id: string;

  @Column()
  slug: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  /** Deploys and rollbacks here wait for a second person's approval (docs/security.md, "Approvals"). */
  @Column({ name: 'requires_approval', type: 'boolean', default: false })
  requiresApproval: boolean;

  /** Keys may not deploy here (a person deploys, or asks to). */
  @Column({ name: 'bars_keys', type: 'boolean', default: false })
  barsKeys: boolean;
}
