import { Injectable } from '@nestjs/common';
import type { Response } from 'express';

import { ProjectPrincipal } from '../auth/principal';
import { openaiErrorObjectOf } from '../common/errors';
import type { WireRequest } from '../common/http/wire-request';
import { InvocationService } from '../invocation/invocation.service';
import { InvocationCodec, renderInvocation } from '../invocation/invocation-renderer';
import { toChatCompletion, toChunk, usageChunk } from './chat-completions.mapper';
import { ChatCompletionsBody } from './chat-completions.schema';
import { ChatCompletionsService } from './chat-completions.service';

/** OpenAI's completion and `chat.completion.chunk` events; with `stream_options.include_usage`, a usage chunk last. */
export function chatCompletionsCodec(includeUsage: boolean): InvocationCodec {
  return {
    completion: toChatCompletion,
    chunk: (chunk) => toChunk(chunk, includeUsage),
    end: (completion) => (includeUsage && completion.usage ? [usageChunk(completion, completion.usage)] : []),
    error: openaiErrorObjectOf,
  };
}

const WITH_USAGE = chatCompletionsCodec(true);
const WITHOUT_USAGE = chatCompletionsCodec(false);

/**
 * `POST /v1/chat/completions` on the wire: OpenAI's completion, or its SSE stream
 * (`chat.completion.chunk` events, a usage chunk with `stream_options.include_usage`, `[DONE]`).
 * Errors before the headers reach the exception filter, which answers in OpenAI's shape.
 */
@Injectable()
export class ChatCompletionsTransport {
  constructor(
    private readonly chatCompletions: ChatCompletionsService,
    private readonly invocation: InvocationService,
  ) {}

  async create(caller: ProjectPrincipal, body: ChatCompletionsBody, request: WireRequest, res: Response): Promise<void> {
    const { input, includeUsage } = await this.chatCompletions.parse(caller, body, request);
    const prepared = await this.invocation.prepare(caller, input);
    await renderInvocation(res, this.invocation, caller, prepared, includeUsage ? WITH_USAGE : WITHOUT_USAGE);
  }
}
