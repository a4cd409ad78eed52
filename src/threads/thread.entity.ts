import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('threads')
export class ThreadEntity {
  @PrimaryColumn({ name: 'project_id', type: 'uuid' })
  projectId: string;

  @PrimaryColumn('uuid')
  id: string;

  @Column({ type: 'jsonb' })
  metadata: Record<string, string | number>;

  @Column({ name: 'create_log', type: 'jsonb' })
  createLog: Record<string, unknown>;

  /** Sequence number of the newest message; appends take numbers from here under the row lock. */
  @Column({ name: 'last_seq', type: 'integer' })
  lastSeq: number;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt: Date | null;
}
