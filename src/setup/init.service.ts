import { Injectable } from '@nestjs/common';

import { ApplyService } from '../apply/apply.service';
import { ApiKeysService } from '../auth/api-keys.service';
import { AppConfig } from '../config/app-config';
import { lockForTransaction, SEED_LOCK_ID } from '../database/advisory-lock';
import { WorkspacesService } from '../workspaces/workspaces.service';
import { DEMO_ASSISTANT, DEMO_ENVIRONMENT, DEMO_PROMPT, demoDocument } from './demo-seed';

export const DEFAULT_WORKSPACE = 'default';
export const DEFAULT_PROJECT = 'default';

export interface InitResult {
  created: boolean;
  workspace: string;
  project: string;
  /** The new project key, shown once. */
  projectKey?: string;
  /** A new admin key, unless PARLEY_ADMIN_KEY is set or one exists already; shown once. */
  adminKey?: string;
  /** The seeded demo prompt and assistant (local/echo), deployed to this environment. */
  demo?: { prompt: string; assistant: string; environment: string };
}

/** `parley init`, and the first start on an empty database (embedded or PostgreSQL). */
@Injectable()
export class InitService {
  constructor(
    private readonly workspaces: WorkspacesService,
    private readonly keys: ApiKeysService,
    private readonly apply: ApplyService,
    private readonly config: AppConfig,
  ) {}

  /**
   * Creates the default workspace, project, keys and demo prompts in one transaction, only if no
   * workspace exists. Replicas starting together on one PostgreSQL take turns on an advisory lock
   * and re-check inside it, so exactly one seeds (and prints keys); the others find a workspace.
   */
  async initIfEmpty(): Promise<InitResult> {
    const base = { workspace: DEFAULT_WORKSPACE, project: DEFAULT_PROJECT };
    if (!(await this.workspaces.isEmpty())) return { created: false, ...base };
    const needsAdminKey = !(await this.keys.hasAdminKey());
    return this.workspaces.transaction(async (manager) => {
      await lockForTransaction(manager, SEED_LOCK_ID, this.config.embedded);
      if (!(await this.workspaces.isEmpty(manager))) return { created: false, ...base };
      await this.workspaces.createWorkspace({ slug: DEFAULT_WORKSPACE, name: 'Default workspace' }, manager);
      await this.workspaces.createProject(DEFAULT_WORKSPACE, { slug: DEFAULT_PROJECT, name: 'Default project' }, manager);
      const projectKey = await this.workspaces.createApiKey(DEFAULT_WORKSPACE, DEFAULT_PROJECT, { name: 'default' }, manager);
      const adminKey = needsAdminKey ? await this.keys.issue('admin', null, 'admin', {}, manager) : undefined;
      await this.apply.applyDocument(demoDocument(DEFAULT_WORKSPACE, DEFAULT_PROJECT), { kind: 'admin' }, manager);
      const demo = { prompt: DEMO_PROMPT, assistant: DEMO_ASSISTANT, environment: DEMO_ENVIRONMENT };
      return { created: true, ...base, projectKey: projectKey.key, adminKey: adminKey?.secret, demo };
    });
  }
}
