import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('thread_messages')
export class ThreadMessageEntity {
  @PrimaryColumn({ name: 'project_id', type: 'uuid' })
  projectId: string;

  @PrimaryColumn('uuid')
  id: string;

  @Column({ name: 'thread_id', type: 'uuid' })
  threadId: string;

  /** Position in the thread: listing and model history order by it, never by timestamp. */
  @Column({ type: 'integer' })
  seq: number;

  /** The turn's chat messages (one thread message per turn from one source). */
  @Column({ type: 'jsonb' })
  content: Record<string, unknown>[];

  @Column({ type: 'jsonb' })
  metadata: Record<string, string | number>;

  @Column({ name: 'request_log_id', type: 'uuid', nullable: true })
  requestLogId: string | null;

  /**
   * Positions (`"<message index>:<part>"`, see src/conversations/item-ids.ts) of conversation items
   * deleted one by one from this turn; they are left out of every view and of the model's history.
   */
  @Column({ name: 'deleted_items', type: 'jsonb', nullable: true })
  deletedItems: string[] | null;

  /**
   * The turn of the compaction that summarizes this one (docs/openai-conversations.md,
   * "Compaction"): the row stays listed, the model's history leaves it out.
   */
  @Column({ name: 'compacted_by', type: 'uuid', nullable: true })
  compactedBy: string | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt: Date | null;
}
