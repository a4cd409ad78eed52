import { Column, Entity, PrimaryColumn, ValueTransformer } from 'typeorm';

const USD: ValueTransformer = {
  to: (value: number | null | undefined) => (value === null || value === undefined ? value : String(value)),
  from: (value: string | null) => (value === null ? null : Number(value)),
};

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

  /** USD per UTC day / calendar month (docs/usage.md, "Budgets"); numeric, read as a number. */
  @Column({ name: 'budget_usd_per_day', type: 'numeric', nullable: true, transformer: USD })
  budgetUsdPerDay: number | null;

  @Column({ name: 'budget_usd_per_month', type: 'numeric', nullable: true, transformer: USD })
  budgetUsdPerMonth: number | null;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
