import { anthropicUnsupportedParam } from './anthropic.translate';
import { localUnsupportedParam } from './local.provider';
import type { ProviderRequest, ProviderType } from './provider.types';

/**
 * What a provider type cannot honour of the fields that change what an answer is (tools, a JSON
 * answer, reasoning), asked when a version with a routing block is saved so that a target which
 * could not serve the version is refused then, not at call time (docs/routing.md, "The routing
 * block"). The knowledge is the adapters' own `unsupportedParam`. Sampling parameters a provider
 * has no place for (Anthropic's temperature) are not asked about: the invoke endpoints drop them
 * for every provider alike.
 */
const UNSUPPORTED_PARAM: Record<ProviderType, (req: ProviderRequest) => string | undefined> = {
  local: localUnsupportedParam,
  anthropic: anthropicUnsupportedParam,
  // OpenAIProvider passes every field through: the upstream itself answers for what it cannot do.
  openai: () => undefined,
};

/** The fields asked about, each on its own so that one the adapter names first does not hide another. */
export const TARGET_CAPABILITY_FIELDS = ['tools', 'tool_choice', 'parallel_tool_calls', 'response_format', 'reasoning_effort'] as const;
export type TargetCapabilityField = (typeof TARGET_CAPABILITY_FIELDS)[number];

/** The fields of `req` (TARGET_CAPABILITY_FIELDS) that a provider of `type` cannot honour; none for a type Parley has no adapter for. */
export function unhonouredFields(type: string, req: ProviderRequest): TargetCapabilityField[] {
  const ask = UNSUPPORTED_PARAM[type as ProviderType] as ((req: ProviderRequest) => string | undefined) | undefined;
  if (!ask) return [];
  return TARGET_CAPABILITY_FIELDS.filter((field) => {
    if (req[field] === undefined || (field === 'tools' && req.tools?.length === 0)) return false;
    // tool_choice is asked with the tools it names.
    const probe: ProviderRequest = { model: req.model, messages: req.messages, ...(field === 'tool_choice' ? { tools: req.tools } : {}) };
    return ask({ ...probe, [field]: req[field] }) !== undefined;
  });
}

/**
 * Whether a provider of `type` sends `field` with `value` upstream: what its adapter's
 * `unsupportedParam` says of a request holding that field alone (the parameter catalogue,
 * src/registry/content/parameter-catalogue.ts). Anthropic's adapter names the sampling parameters
 * the Messages API refuses: the invoke endpoints leave them out of its calls.
 */
export function sendsParameter(type: ProviderType, field: keyof ProviderRequest, value: unknown): boolean {
  return UNSUPPORTED_PARAM[type]({ model: 'probe', messages: [], [field]: value } as ProviderRequest) === undefined;
}
