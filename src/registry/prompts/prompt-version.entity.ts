import { Column, Entity, PrimaryColumn } from 'typeorm';

import { ChatMessage } from '../../common/chat';
import type { ResponseCacheSettings, Routing } from '../content/routing.schema';
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

  /** The routing block (docs/routing.md); null: the version's provider and model serve every call. */
  @Column({ type: 'jsonb', nullable: true })
  routing: Routing | null;

  /** The exact response cache (docs/routing.md, "Response cache"); null: off. */
  @Column({ name: 'response_cache', type: 'jsonb', nullable: true })
  responseCache: ResponseCacheSettings | null;

  /** A note on what changed, like a commit message. */
  @Column({ type: 'varchar', nullable: true })
  message: string | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
