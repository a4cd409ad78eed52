import type { InvokeTarget } from '../invocation/invocation.types';

/**
 * What a `/v1` `model` names (docs/openai-compatibility.md): `<provider>/<model>` is a direct call
 * (the model may itself contain "/", as OpenRouter's do); otherwise `<slug>`, `<slug>@<environment>`
 * or `<slug>@<environment>:<version>`, the environment defaulting to `production`.
 * Undefined when the name cannot be either.
 */
export function targetOfModel(model: string): InvokeTarget | undefined {
  const slash = model.indexOf('/');
  if (slash >= 0) {
    const provider = model.slice(0, slash);
    const name = model.slice(slash + 1);
    return provider && name ? { type: 'provider', provider, model: name } : undefined;
  }
  const match = /^([^@:]+)(?:@([^@:]+)(?::([1-9][0-9]{0,8}))?)?$/.exec(model);
  if (!match) return undefined;
  const [, slug, environment = 'production', version] = match;
  return { type: 'deployment', slug, environment, ...(version ? { version: Number(version) } : {}) };
}

/** A deployment's model id as `/v1/models` lists it. */
export const deploymentModelId = (slug: string, environment: string) => `${slug}@${environment}`;
