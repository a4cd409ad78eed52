import { Column, Entity, PrimaryColumn } from 'typeorm';

/** One change to a project's configuration (docs/security.md, "Audit trail"). Append-only. */
@Entity('audit_events')
export class AuditEventEntity {
  @PrimaryColumn({ name: 'project_id', type: 'uuid' })
  projectId: string;

  @PrimaryColumn('uuid')
  id: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  /** `project` or `admin` (a key), `user` (a person), `operator` (the CLI on the database), `system` (the server's own change: a tripped guard). */
  @Column({ name: 'actor_kind', type: 'varchar' })
  actorKind: string;

  @Column({ name: 'actor_key_id', type: 'uuid', nullable: true })
  actorKeyId: string | null;

  @Column({ name: 'actor_key_name', type: 'varchar', nullable: true })
  actorKeyName: string | null;

  /** The person behind a change made from their console session; null for keys, the CLI and the system. */
  @Column({ name: 'actor_user_id', type: 'uuid', nullable: true })
  actorUserId: string | null;

  @Column({ name: 'actor_user_email', type: 'varchar', nullable: true })
  actorUserEmail: string | null;

  @Column({ type: 'varchar' })
  action: string;

  @Column({ name: 'resource_type', type: 'varchar' })
  resourceType: string;

  @Column({ name: 'resource_id', type: 'varchar' })
  resourceId: string;

  @Column({ type: 'jsonb', nullable: true })
  before: Record<string, unknown> | null;

  @Column({ type: 'jsonb', nullable: true })
  after: Record<string, unknown> | null;

  @Column({ name: 'request_id', type: 'varchar', nullable: true })
  requestId: string | null;
}
