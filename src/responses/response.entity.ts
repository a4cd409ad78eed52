import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('responses')
export class ResponseEntity {
  @PrimaryColumn({ name: 'project_id', type: 'uuid' })
  projectId: string;

  @PrimaryColumn('uuid')
  id: string;

  @Column({ name: 'previous_response_id', type: 'uuid', nullable: true })
  previousResponseId: string | null;

  @Column({ name: 'conversation_id', type: 'uuid', nullable: true })
  conversationId: string | null;

  /** This turn's input as chat messages (history and instructions not included). */
  @Column({ type: 'jsonb' })
  input: Record<string, unknown>[];

  /** The reply as chat messages (one assistant message). */
  @Column({ type: 'jsonb' })
  output: Record<string, unknown>[];

  /** The Response object as answered. */
  @Column({ type: 'jsonb' })
  body: Record<string, unknown>;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt: Date | null;

  /** The request log of the call that made it (feedback on a response reaches its version through it); null before it was kept. */
  @Column({ name: 'log_id', type: 'uuid', nullable: true })
  logId: string | null;
}
