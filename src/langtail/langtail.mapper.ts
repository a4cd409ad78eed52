import type { ResolvedDeployment } from '../registry';
import type { DeploymentDto } from '../registry/deployments/dto/deployment.dto';

/**
 * The langtail SDK's `PlaygroundState` (langtail 0.16, `prompts.get`): the deployed version's
 * template, model settings and variable defaults. Never the provider's key or address.
 */
export interface PlaygroundState {
  state: {
    type: 'chat';
    template: unknown[];
    tools?: unknown[];
    args: Record<string, unknown>;
  };
  chatInput: Record<string, string>;
}

/** The langtail SDK's `Deployment` (`prompts.listDeployments`). */
export interface LangtailDeployment {
  deployedAt: string;
  promptSlug: string;
  environment: string;
  version: string;
}

export function toPlaygroundState(resolved: ResolvedDeployment): PlaygroundState {
  const { response_format, ...parameters } = resolved.parameters;
  const args: Record<string, unknown> = { model: resolved.model, ...parameters, stream: false };
  if (response_format) args.jsonmode = response_format.type === 'json_object';
  return {
    state: { type: 'chat', template: resolved.template, ...(resolved.tools.length ? { tools: resolved.tools } : {}), args },
    chatInput: { ...resolved.variableDefaults },
  };
}

export function toLangtailDeployment(deployment: DeploymentDto): LangtailDeployment {
  return {
    deployedAt: deployment.deployedAt,
    promptSlug: deployment.slug,
    environment: deployment.environment,
    version: String(deployment.version),
  };
}
