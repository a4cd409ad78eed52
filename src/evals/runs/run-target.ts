import { Injectable } from '@nestjs/common';

import { mayInvokeIn, type ProjectPrincipal } from '../../auth/principal';
import type { ChatMessage } from '../../common/chat';
import { invalidBody } from '../../common/errors';
import { InvocationService } from '../../invocation/invocation.service';
import type { RequestOverrides, ResolvedTarget } from '../../invocation/invocation.types';
import { environmentRefused } from '../../invocation/invoke-errors';
import { prepareVersionContent } from '../../registry/content/version-content';
import { ifArchived } from '../../registry/prompts/prompt-archived';
import { RegistryService } from '../../registry/registry.service';
import type { CompiledTemplate } from '../../templates';
import { runEnvironment } from '../eval-wire';
import type { StoredTarget } from './run.schema';

/** What every item of a run is invoked with: the resolved target and, for a draft, its template and settings. */
export interface PreparedTarget {
  target: ResolvedTarget;
  template?: CompiledTemplate<ChatMessage>;
  overrides: RequestOverrides;
  variableDefaults: Record<string, string>;
  /** The prompt version the run measures (a deploy gate looks for it); null for a draft. */
  promptId: string | null;
  promptVersionId: string | null;
}

export { runEnvironment };

/**
 * Resolves a run's target for its caller (docs/evals.md, "Experiments"): a version outside any
 * environment, or a draft on its provider. Throws the management 400 naming what is missing.
 */
@Injectable()
export class RunTargets {
  constructor(
    private readonly registry: RegistryService,
    private readonly invocation: InvocationService,
  ) {}

  async prepare(caller: ProjectPrincipal, runId: string, stored: StoredTarget): Promise<PreparedTarget> {
    if (stored.type === 'version') {
      // An experiment is not an environment: a key limited to environments cannot run a version in one.
      if (!mayInvokeIn(caller, null)) throw environmentRefused(caller);
      const deployment = await ifArchived(this.registry.resolveVersion(caller.projectId, stored.prompt, stored.version), (refusal) => {
        throw invalidBody([`target: ${refusal.detail}`]);
      });
      if (!deployment) throw invalidBody([`target: "${stored.prompt}" has no version ${stored.version}`]);
      const { provider, model, kind, promptSlug: slug } = deployment;
      return {
        target: { deployment, provider, model, kind, slug, environment: runEnvironment(runId) },
        overrides: {},
        variableDefaults: {},
        promptId: deployment.promptId,
        promptVersionId: deployment.versionId,
      };
    }
    const prepared = prepareVersionContent(stored.draft);
    if (!prepared.ok) throw invalidBody(prepared.issues.map((issue) => `target.draft.${issue.path.join('.')}: ${issue.message}`));
    const { content, compiled } = prepared.value;
    const resolved = await this.invocation.resolve(caller, { type: 'provider', provider: content.provider, model: content.model });
    if (!resolved) throw invalidBody([`target.draft.provider: no provider "${content.provider}" in this project`]);
    const overrides: RequestOverrides = { ...(content.parameters as RequestOverrides) };
    if (content.tools.length) overrides.tools = content.tools as RequestOverrides['tools'];
    return {
      target: { ...resolved, slug: stored.prompt ?? resolved.slug, environment: runEnvironment(runId) },
      template: compiled,
      overrides,
      variableDefaults: content.variables,
      promptId: null,
      promptVersionId: null,
    };
  }
}
