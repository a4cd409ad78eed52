import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('environments')
export class EnvironmentEntity {
  @PrimaryColumn({ name: 'project_id', type: 'uuid' })
  projectId: string;

  @PrimaryColumn('uuid')
  id: string;

  @Column()
  slug: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
