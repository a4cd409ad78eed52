import { Column, Entity, PrimaryColumn } from 'typeorm';

/** An operator's price of one model of one provider in a project (docs/usage.md, "Overriding prices"); USD per million tokens. */
@Entity('price_overrides')
export class PriceOverrideEntity {
  @PrimaryColumn({ name: 'project_id', type: 'uuid' }) projectId: string;
  @PrimaryColumn('uuid') id: string;
  @Column({ name: 'provider_name', type: 'varchar' }) providerName: string;
  @Column({ type: 'varchar' }) model: string;
  @Column({ name: 'input_per_mtok', type: 'numeric' }) inputPerMTok: string;
  @Column({ name: 'cache_read_per_mtok', type: 'numeric', nullable: true }) cacheReadPerMTok: string | null;
  @Column({ name: 'cache_write_per_mtok', type: 'numeric', nullable: true }) cacheWritePerMTok: string | null;
  @Column({ name: 'output_per_mtok', type: 'numeric' }) outputPerMTok: string;
  @Column({ name: 'updated_at', type: 'timestamptz' }) updatedAt: Date;
}
