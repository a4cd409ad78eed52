import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * Limits of one subject of a project: `project` (all its keys together), `keys` (the default for
 * each key) or a key's id (that key, overriding `keys`). null = no limit.
 */
@Entity('limit_settings')
export class LimitSettingEntity {
  @PrimaryColumn({ name: 'project_id', type: 'uuid' })
  projectId: string;

  @PrimaryColumn({ type: 'varchar', length: 64 })
  subject: string;

  @Column({ name: 'requests_per_minute', type: 'integer', nullable: true })
  requestsPerMinute: number | null;

  @Column({ name: 'concurrent_invokes', type: 'integer', nullable: true })
  concurrentInvokes: number | null;

  @Column({ name: 'tokens_per_day', type: 'integer', nullable: true })
  tokensPerDay: number | null;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
