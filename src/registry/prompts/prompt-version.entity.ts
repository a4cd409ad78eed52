import { Column, Entity, PrimaryColumn } from 'typeorm';

import { ChatMessage } from '../../common/chat';
import { ModelParameters } from '../resolved-deployment';

/** One immutable version of a prompt. Rows are inserted, never updated. */
@Entity('prompt_versions')
export class PromptVersionEntity {
  @PrimaryColumn({ name: 'project_id', type: 'uuid' })
  projectId: string;

  @PrimaryColumn('uuid')
  id: string;

  @Column({ name: 'prompt_id', type: 'uuid' })
  promptId: string;

  @Column({ type: 'integer' })
  version: number;

  @Column({ name: 'content_hash', type: 'char', length: 64 })
  contentHash: string;

  @Column({ type: 'jsonb' })
  template: ChatMessage[];

  @Column()
  provider: string;

  @Column()
  model: string;

  @Column({ type: 'jsonb' })
  parameters: ModelParameters;

  @Column({ type: 'jsonb' })
  tools: unknown[];

  /** Declared variables with their defaults. */
  @Column({ type: 'jsonb' })
  variables: Record<string, string>;

  /** The template's variables plus the declared ones, sorted: what an invoke may send. */
  @Column({ name: 'declared_variables', type: 'jsonb' })
  declaredVariables: string[];

  /** A note on what changed, like a commit message. */
  @Column({ type: 'varchar', nullable: true })
  message: string | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
