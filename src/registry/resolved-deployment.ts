import type { ChatMessage } from '../common/chat';
import type { CompiledTemplate } from '../templates';
import type { FallbackReason, ResponseCacheSettings, RoutingStrategy } from './content/routing.schema';
import type { DeploymentSplit } from './deployments/split';

/**
 * What invocation (src/invocation) needs to call one prompt or assistant: the contract between the
 * registry and the invoke path. Returned by `RegistryService.resolveForInvoke`; keep this shape stable.
 */

/** `embedding`: an embedding entry (docs/embeddings.md, "Deployed embedding entries"): a provider, a model and dimensions, no template. */
export type PromptKind = 'prompt' | 'assistant' | 'embedding';
/** The kinds and their order, for enums in DTOs and files. */
export const PROMPT_KINDS = ['prompt', 'assistant', 'embedding'] as const;
export type ProviderKind = 'local' | 'openai' | 'anthropic';

/** `tool_choice` as stored on a version (and as the invoke body accepts it). */
export type StoredToolChoice = 'auto' | 'required' | 'none' | { type: 'function'; function: { name: string } };

/** The model settings a version stores; request values override them field by field. */
export interface ModelParameters {
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  presence_penalty?: number;
  frequency_penalty?: number;
  seed?: number;
  stop?: string | string[];
  response_format?: { type: 'json_object' | 'text' };
  tool_choice?: StoredToolChoice;
  /** An embedding entry's vector size (its only parameter); never set on a prompt or assistant. */
  dimensions?: number;
}

export interface ResolvedProvider {
  /** The name versions refer to: `local`, or a provider credential of the project. */
  name: string;
  type: ProviderKind;
  /** OpenAI-compatible: up to and including `/v1`; Anthropic: the API host. Absent: the type's default. */
  baseUrl?: string;
  /**
   * The key, decrypted (stored credential) or read from the server's environment (`apiKeyEnv`) at the
   * moment resolveForInvoke returns; never kept in the resolution cache (ProviderCredentialsService
   * memoizes the decryption itself, see apiKeyOf). Absent for `local`, for credentials with
   * no key (a keyless local gateway), and when the named environment variable is unset.
   */
  apiKey?: string;
  /** The provider credential row (request logs' providerKeyId); null for the built-in `local`. */
  credentialId: string | null;
}

/** One target of a routing block, its provider resolved like the version's own. */
export interface ResolvedRoutingTarget {
  /** The target's place in the version's list (0 is the primary): health and logs name targets by it with provider and model. */
  index: number;
  provider: ResolvedProvider;
  model: string;
  /** `weighted` only; 1 unless the block set it. */
  weight: number;
  /** The target's overrides of the version's parameters ({} when none). */
  parameters: ModelParameters;
}

/** A version's routing block (docs/routing.md) with its targets' providers resolved. */
export interface ResolvedRouting {
  strategy: RoutingStrategy;
  targets: ResolvedRoutingTarget[];
  fallbackOn: FallbackReason[];
  firstTokenTimeoutMs?: number;
}

export interface ResolvedDeployment {
  kind: PromptKind;
  promptId: string;
  promptSlug: string;
  /** The environment slug of the path. */
  environment: string;
  /**
   * The deployment of this prompt in this environment. With a pinned version (`?v=N`) these still
   * name the environment's current deployment when there is one, and are null when the environment
   * has none (a pinned version need not be deployed anywhere).
   */
  deploymentId: string | null;
  deploymentVersion: number | null;
  /** True when the version was pinned by `?v=N` rather than taken from the deployment. */
  pinned: boolean;
  versionId: string;
  /** The prompt's version number: 1, 2, 3 … */
  version: number;
  /** SHA-256 (hex) of the version's canonical content: request logs' `promptHistoryHash`. */
  contentHash: string;
  /** The stored template messages (validated, image `detail` filled in). Do not mutate. */
  template: ChatMessage[];
  /** `template`, compiled once per version (TemplateCache keyed by versionId). */
  compiled: CompiledTemplate<ChatMessage>;
  /** Variables a request may send: those the template reads plus those declared with a default; sorted. */
  declaredVariables: string[];
  /** Declared defaults; a variable missing from both the request and here renders empty. */
  variableDefaults: Record<string, string>;
  provider: ResolvedProvider;
  model: string;
  parameters: ModelParameters;
  /** Chat-completion tool definitions (`{type: 'function', function: {...}}`). */
  tools: unknown[];
  /**
   * The environment's split (docs/experiments.md, "Splits"), on the resolution of its deployment
   * and of the arm chosen from it; absent on a plain deployment and on a pinned version.
   */
  split?: DeploymentSplit;
  /** The version's routing block; absent: `provider` and `model` serve every call. Its first target is `provider`/`model`. */
  routing?: ResolvedRouting;
  /** The version's exact response cache; absent: off unless the call asks for it. */
  responseCache?: ResponseCacheSettings;
}
