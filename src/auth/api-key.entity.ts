import { Column, Entity, PrimaryColumn } from 'typeorm';

import type { Scope } from './scopes';

/** A project key, or an admin key when projectId is null. Only the SHA-256 of the secret is kept. */
@Entity('api_keys')
export class ApiKeyEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column({ name: 'project_id', type: 'uuid', nullable: true })
  projectId: string | null;

  @Column()
  name: string;

  @Column({ name: 'key_hash', type: 'char', length: 64 })
  keyHash: string;

  @Column({ name: 'key_prefix' })
  keyPrefix: string;

  /** A workspace admin key's workspace (projectId null); null otherwise. */
  @Column({ name: 'workspace_id', type: 'uuid', nullable: true })
  workspaceId: string | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt: Date | null;

  /** null: every scope (docs/security.md, "Scopes"). */
  @Column({ type: 'jsonb', nullable: true })
  scopes: Scope[] | null;

  /** The environments the key may invoke; null: all. */
  @Column({ type: 'jsonb', nullable: true })
  environments: string[] | null;
}
