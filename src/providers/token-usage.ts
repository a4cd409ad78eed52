/**
 * Tokens of one call by kind, as the provider reported them (docs/usage.md, "What is counted").
 * The kinds do not overlap: a prompt is `input + cacheRead + cacheWrite`, an answer is
 * `output + reasoning`, and each token is priced at its kind's rate.
 */
import type { CompletionUsage } from 'openai/resources/completions';

export interface TokenCounts {
  /** Prompt tokens read neither from nor into a prompt cache. */
  input: number;
  /** Prompt tokens read from the provider's prompt cache. */
  cacheRead: number;
  /** Prompt tokens written into the provider's prompt cache (Anthropic's cache_creation_input_tokens). */
  cacheWrite: number;
  /** Completion tokens the model spent reasoning (not in the answer's text). */
  reasoning: number;
  /** Completion tokens of the answer itself, reasoning excluded. */
  output: number;
}

const count = (n: unknown): number => (typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.floor(n) : 0);

/**
 * OpenAI's usage: `prompt_tokens` includes `prompt_tokens_details.cached_tokens`, and
 * `completion_tokens` includes `completion_tokens_details.reasoning_tokens`. A compatible server
 * whose detail is larger than its total evidently counts it apart: the total is then the rest.
 */
export function tokensFromOpenAI(usage: Partial<CompletionUsage>): TokenCounts {
  const prompt = count(usage.prompt_tokens);
  const completion = count(usage.completion_tokens);
  const cacheRead = count(usage.prompt_tokens_details?.cached_tokens);
  const reasoning = count(usage.completion_tokens_details?.reasoning_tokens);
  return {
    input: cacheRead > prompt ? prompt : prompt - cacheRead,
    cacheRead,
    cacheWrite: 0,
    reasoning,
    output: reasoning > completion ? completion : completion - reasoning,
  };
}

/** Anthropic's usage: `input_tokens` excludes the cache reads and writes, which it reports apart. */
export function tokensFromAnthropic(usage: {
  input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  output_tokens?: number | null;
}): TokenCounts {
  return {
    input: count(usage.input_tokens),
    cacheRead: count(usage.cache_read_input_tokens),
    cacheWrite: count(usage.cache_creation_input_tokens),
    reasoning: 0,
    output: count(usage.output_tokens),
  };
}

export function plainTokens(prompt: number, completion: number): TokenCounts {
  return { input: count(prompt), cacheRead: 0, cacheWrite: 0, reasoning: 0, output: count(completion) };
}

export function promptTokensOf(tokens: TokenCounts): number {
  return tokens.input + tokens.cacheRead + tokens.cacheWrite;
}

export function completionTokensOf(tokens: TokenCounts): number {
  return tokens.output + tokens.reasoning;
}

/**
 * The usage object clients see, in OpenAI's shape: the details appear when there is something in
 * them (cached reads, reasoning); cache writes have no place in it and stay in the request log.
 */
export function completionUsageOf(tokens: TokenCounts): CompletionUsage {
  const prompt = promptTokensOf(tokens);
  const completion = completionTokensOf(tokens);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    ...(tokens.cacheRead > 0 ? { prompt_tokens_details: { cached_tokens: tokens.cacheRead } } : {}),
    ...(tokens.reasoning > 0 ? { completion_tokens_details: { reasoning_tokens: tokens.reasoning } } : {}),
  };
}
