import { Column, Entity, PrimaryColumn } from 'typeorm';

import { PromptKind } from '../resolved-deployment';

/** A prompt or an assistant: one slug namespace per project, the kind decides how it is invoked. */
@Entity('prompts')
export class PromptEntity {
  @PrimaryColumn({ name: 'project_id', type: 'uuid' })
  projectId: string;

  @PrimaryColumn('uuid')
  id: string;

  @Column()
  slug: string;

  @Column({ type: 'varchar' })
  kind: PromptKind;

  /** The newest version number; 0 before the first version. */
  @Column({ name: 'last_version', type: 'integer' })
  lastVersion: number;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  /** Set while archived (docs/registry.md, "Archiving"): kept, listed only on asking, neither invoked nor deployed. */
  @Column({ name: 'archived_at', type: 'timestamptz', nullable: true })
  archivedAt: Date | null;
}
