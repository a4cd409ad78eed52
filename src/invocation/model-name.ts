import type { InvokeTarget } from './invocation.types';

/**
 * What a `model` of the foreign wire formats names (docs/openai-compatibility.md, "What `model`
 * names"), for every surface that takes one (`/v1/chat/completions`, `/v1/responses`,
 * `/v1/messages`): `<provider>/<model>` is a direct call (the model may itself contain "/", as
 * OpenRouter's do); otherwise `<slug>`, `<slug>@<environment>` or `<slug>@<environment>:<version>`,
 * the environment defaulting to `production`. Undefined when the name cannot be either.
 *
 * Here, below the surfaces, so that peers (openai/, anthropic/) share it without importing each
 * other (docs/architecture.md, "Layers").
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
