import { Column, Entity, PrimaryColumn } from 'typeorm';

import type { LiveGrader } from './live-graders';

/** A project's settings (docs/embeddings.md, "Project settings"); a project without a row has the defaults. */
@Entity('project_settings')
export class ProjectSettingsEntity {
  @PrimaryColumn({ name: 'project_id', type: 'uuid' })
  projectId: string;

  /** False: `/v1/embeddings` calls of the project keep no input text in their request logs. */
  @Column({ name: 'record_embedding_inputs', type: 'boolean' })
  recordEmbeddingInputs: boolean;

  /** The graders that score a share of the project's live calls (docs/experiments.md, "Live graders"). */
  @Column({ name: 'live_graders', type: 'jsonb' })
  liveGraders: LiveGrader[];

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
