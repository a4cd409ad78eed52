/**
 * Anthropic's Messages API over undici (upstream-http.ts), translated to and from the
 * chat-completion format (anthropic.translate.ts, anthropic.stream.ts); the types are the official
 * `@anthropic-ai/sdk`'s. Headers as the Messages API documents them: the key as `x-api-key` and
 * `anthropic-version: 2026-10-21` (docs/decisions.md "Anthropic").
 */
import type { Message, MessageCreateParamsStreaming } from '@anthropic-ai/sdk/resources/messages';
import { z } from 'zod';

import { AnthropicStreamTranslator } from './anthropic.stream';
import { anthropicUnsupportedParam, fromAnthropicMessage, toAnthropicBody } from './anthropic.translate';
import {
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
import { tokensFromAnthropic } from './token-usage';
import { answerOfShape } from './upstream-errors';
import { UpstreamCall, UpstreamHttp } from './upstream-http';

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';
export const ANTHROPIC_API_VERSION = '2026-10-21';
/** What fromAnthropicMessage reads of an answer: its content blocks, each with a type. */
const MESSAGE_SHAPE = z.looseObject({ content: z.array(z.looseObject({ type: z.string() })), usage: z.looseObject({}).optional() });

export class AnthropicProvider implements ProviderAdapter {
  readonly type = 'anthropic' as const;

  constructor(private readonly http: UpstreamHttp = new UpstreamHttp()) {}

  /** What the Messages API has no equivalent for, or rejects (see anthropic.translate.ts). */
  unsupportedParam(req: ProviderRequest): string | undefined {
    return anthropicUnsupportedParam(req);
  }

  /** Anthropic's own count (POST /v1/messages/count_tokens) of the translated request. */
  async countInputTokens(req: ProviderRequest, creds: ProviderCredentials, opts: ProviderCallOptions = {}): Promise<InputTokenCount> {
    const { model, messages, system, tools, tool_choice, thinking } = toAnthropicBody(req);
    const body = {
      model,
      messages,
      ...(system ? { system } : {}),
      ...(tools ? { tools } : {}),
      ...(tool_choice ? { tool_choice } : {}),
      ...(thinking ? { thinking } : {}),
    };
    const answer = (await this.http.json(this.call(creds, body, 'application/json', '/v1/messages/count_tokens'), opts)) as {
      input_tokens?: unknown;
    };
    if (typeof answer.input_tokens !== 'number')
      throw new ProviderError('upstream', 'Anthropic answered a token count without input_tokens', { provider: 'anthropic' });
    return { input_tokens: answer.input_tokens, exact: true };
  }

  async complete(req: ProviderRequest, creds: ProviderCredentials, opts: ProviderCallOptions = {}): Promise<ProviderResult> {
    const body = toAnthropicBody(req);
    const message = answerOfShape<Message>(
      await this.http.json(this.call(creds, body, 'application/json'), opts),
      MESSAGE_SHAPE,
      'anthropic',
      'a Messages API message',
    );
    return {
      completion: fromAnthropicMessage(message),
      providerRequest: body,
      providerResponse: message,
      tokens: tokensFromAnthropic(message.usage ?? {}),
    };
  }

  stream(req: ProviderRequest, creds: ProviderCredentials, opts: ProviderCallOptions = {}): ProviderStream {
    let body: MessageCreateParamsStreaming;
    try {
      body = { ...toAnthropicBody(req), stream: true };
    } catch (err) {
      // Untranslatable input fails the first next(), like an upstream refusal would.
      return new ChunkStream({}, () => rejectWith(err));
    }
    return new ChunkStream(body, (sink) =>
      sseChunks(this.http, () => this.call(creds, body, 'text/event-stream'), opts, new AnthropicStreamTranslator(req.model), sink),
    );
  }

  private call(creds: ProviderCredentials, body: object, accept: string, path = '/v1/messages'): UpstreamCall {
    return {
      provider: 'anthropic',
      target: this.http.target('anthropic', creds.baseUrl || ANTHROPIC_DEFAULT_BASE_URL, path),
      // Keyless (a proxy that adds the key): no x-api-key header.
      headers: UpstreamHttp.headers(undefined, accept, {
        'anthropic-version': ANTHROPIC_API_VERSION,
        ...(creds.apiKey ? { 'x-api-key': creds.apiKey } : {}),
      }),
      body: JSON.stringify(body),
    };
  }
}
