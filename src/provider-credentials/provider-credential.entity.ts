import { Column, Entity, PrimaryColumn } from 'typeorm';

export type CredentialType = 'openai' | 'anthropic';

/** How a project reaches one provider. The key is encrypted (never stored in clear) or named by an environment variable. */
@Entity('provider_credentials')
export class ProviderCredentialEntity {
  @PrimaryColumn({ name: 'project_id', type: 'uuid' })
  projectId: string;

  @PrimaryColumn('uuid')
  id: string;

  @Column()
  name: string;

  @Column({ type: 'varchar' })
  type: CredentialType;

  @Column({ name: 'base_url', type: 'varchar', nullable: true })
  baseUrl: string | null;

  @Column({ name: 'api_key_env', type: 'varchar', nullable: true })
  apiKeyEnv: string | null;

  /** The operator set `apiKeyEnv` with this base URL: it may name a variable PROVIDER_KEY_BINDINGS does not bind. */
  @Column({ name: 'api_key_env_by_operator', type: 'boolean', default: false })
  apiKeyEnvByOperator: boolean;

  /** SecretBox output, bound to (project_id, id); never leaves the service. */
  @Column({ name: 'api_key_ciphertext', type: 'text', nullable: true })
  apiKeyCiphertext: string | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
