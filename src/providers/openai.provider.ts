/**
 * Any OpenAI-compatible chat-completions endpoint (OpenAI, Azure-style gateways, vLLM, Ollama,
 * llama.cpp server, OpenRouter) over undici (upstream-http.ts). The request is passed through;
 * the answer is normalised to the ChatCompletion shape (openai.translate.ts).
 */
import type { ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import { z } from 'zod';

import { normaliseCompletion, OpenAIEventTranslator, toOpenAIBody } from './openai.translate';
import { countOpenAIInputTokens } from './openai-token-count';
import type { ChatCompletion } from './provider.types';
import {
  EmbeddingRequest,
  EmbeddingResult,
  InputTokenCount,
  ProviderAdapter,
  ProviderCallOptions,
  ProviderCredentials,
  ProviderError,
  ProviderRequest,
  ProviderResult,
  ProviderStream,
} from './provider.types';
import { ChunkStream, rejectWith } from './provider-stream';
import { sseChunks } from './sse-stream';
import { tokensFromOpenAI } from './token-usage';
import { answerOfShape } from './upstream-errors';
import { UpstreamCall, UpstreamHttp } from './upstream-http';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export class OpenAIProvider implements ProviderAdapter {
  readonly type = 'openai' as const;

  constructor(private readonly http: UpstreamHttp = new UpstreamHttp()) {}

  /** Every field is passed through: the upstream itself answers for what it cannot do. */
  unsupportedParam(): string | undefined {
    return undefined;
  }

  /** OpenAI's models by their tokenizer; other models of compatible servers estimated (openai-token-count.ts). */
  countInputTokens(req: ProviderRequest): Promise<InputTokenCount> {
    return Promise.resolve(countOpenAIInputTokens(toOpenAIBody(req) as unknown as ProviderRequest));
  }

  async complete(req: ProviderRequest, creds: ProviderCredentials, opts: ProviderCallOptions = {}): Promise<ProviderResult> {
    const body = toOpenAIBody(req);
    const raw = answerOfShape<ChatCompletion>(
      await this.http.json(this.call(creds, body, 'application/json'), opts),
      COMPLETION_SHAPE,
      'openai',
      'a chat completion',
    );
    const tokens = raw.usage ? tokensFromOpenAI(raw.usage) : undefined;
    return { completion: normaliseCompletion(raw, req.model), providerRequest: body, providerResponse: raw, ...(tokens ? { tokens } : {}) };
  }

  stream(req: ProviderRequest, creds: ProviderCredentials, opts: ProviderCallOptions = {}): ProviderStream {
    // include_usage, whether or not the client asked for it: the upstream appends a usage-only
    // chunk, kept on `stream.tokens` for the log and the cost, not yielded.
    let body: ChatCompletionCreateParamsStreaming;
    try {
      body = { ...toOpenAIBody(req), stream: true, stream_options: { include_usage: true } };
    } catch (err) {
      return new ChunkStream({}, () => rejectWith(err));
    }
    return new ChunkStream(body, (sink) =>
      sseChunks(this.http, () => this.call(creds, body, 'text/event-stream'), opts, new OpenAIEventTranslator(body.model), sink),
    );
  }

  /** Token arrays are passed through: the upstream answers for what it cannot do, as for chat fields. */
  readonly embedsTokenArrays = true;

  /**
   * `POST {baseUrl}/embeddings` through the same client, timeouts, retries and outbound policy as
   * chat. Floats are asked for (every compatible server speaks them); the caller's encoding is Parley's.
   */
  async embed(req: EmbeddingRequest, creds: ProviderCredentials, opts: ProviderCallOptions = {}): Promise<EmbeddingResult> {
    const body = {
      model: req.model,
      input: req.input,
      encoding_format: 'float',
      ...(req.dimensions !== undefined ? { dimensions: req.dimensions } : {}),
      ...(req.user !== undefined ? { user: req.user } : {}),
    };
    const raw = answerOfShape<z.output<typeof EMBEDDINGS_SHAPE>>(
      await this.http.json(this.call(creds, body, 'application/json', '/embeddings'), opts),
      EMBEDDINGS_SHAPE,
      'openai',
      'a list of embeddings',
    );
    const vectors: number[][] = new Array(req.input.length);
    for (const item of raw.data) if (item.index < vectors.length) vectors[item.index] = item.embedding;
    if (raw.data.length !== req.input.length || vectors.some((v) => v === undefined)) {
      throw new ProviderError('upstream', `openai upstream answered ${raw.data.length} embeddings for ${req.input.length} inputs`, {
        provider: 'openai',
      });
    }
    const { input: _input, ...sent } = body;
    return { vectors, model: raw.model ?? req.model, promptTokens: raw.usage?.prompt_tokens ?? 0, providerRequest: sent };
  }

  private call(creds: ProviderCredentials, body: object, accept: string, suffix = '/chat/completions'): UpstreamCall {
    return {
      provider: 'openai',
      target: this.http.target('openai', creds.baseUrl || OPENAI_DEFAULT_BASE_URL, suffix),
      // Keyless local servers (Ollama, llama.cpp): no Authorization header.
      headers: UpstreamHttp.headers(creds.apiKey, accept),
      body: JSON.stringify(body),
    };
  }
}
/** What normaliseCompletion reads of an answer: an object whose choices, when there, are objects. */
const COMPLETION_SHAPE = z.looseObject({ choices: z.array(z.looseObject({ message: z.looseObject({}).nullish() })).nullish() });
/** What embed reads of an answer: `data[]` of float vectors with their index, the model, the usage. */
const EMBEDDINGS_SHAPE = z.looseObject({
  data: z.array(z.looseObject({ index: z.number().int().min(0), embedding: z.array(z.number()) })),
  model: z.string().nullish(),
  usage: z.looseObject({ prompt_tokens: z.number().nullish() }).nullish(),
});
