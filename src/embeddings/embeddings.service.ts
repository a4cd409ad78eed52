import { Injectable } from '@nestjs/common';

import { ProjectPrincipal } from '../auth/principal';
import { openaiError } from '../common/errors';
import { badParam, modelNotFound } from '../common/errors/openai-request-errors';
import { wireLogFields, WireRequest } from '../common/http/wire-request';
import { AppConfig } from '../config/app-config';
import { idempotencyKeyOf } from '../idempotency/idempotency.interceptor';
import { InvocationService } from '../invocation/invocation.service';
import { EmbeddingInput } from '../invocation/invocation-embed';
import { invokeMetadataOf, optionsFromHeaders } from '../invocation/invoke-headers';
import { targetOfModel } from '../invocation/model-name';
import { LOCAL_EMBEDDING_MAX_DIMENSIONS, LOCAL_EMBEDDING_MODEL, ProvidersService } from '../providers';
import { EmbeddingsBody, inputsOf } from './embeddings.schema';

export interface EmbeddingsCall {
  input: EmbeddingInput;
  encoding: 'float' | 'base64';
}

/**
 * `POST /v1/embeddings` as an input of the core's EmbeddingInvocation (docs/embeddings.md): the
 * provider `model` names, and OpenAI-shaped 400/404s for what it cannot embed, before any call
 * (so they are not logged, as on /v1/chat/completions).
 */
@Injectable()
export class EmbeddingsService {
  /** EMBEDDINGS_RECORD_INPUTS: false keeps no input text in any embedding call's log. */
  private readonly recordInputs: boolean;

  constructor(
    private readonly invocation: InvocationService,
    private readonly providers: ProvidersService,
    config: AppConfig,
  ) {
    this.recordInputs = config.embeddingsRecordInputs;
  }

  /** `body`: validated by the global pipe (EmbeddingsBodyDto); `request`: its headers and what its log records. */
  async parse(caller: ProjectPrincipal, body: EmbeddingsBody, request: WireRequest): Promise<EmbeddingsCall> {
    const named = targetOfModel(body.model);
    if (named?.type === 'deployment') {
      throw openaiError(
        404,
        `The model '${body.model}' is not an embedding model: /v1/embeddings takes '<provider>/<model>', ` +
          `a provider credential of the project or '${'local/' + LOCAL_EMBEDDING_MODEL}'.`,
        { param: 'model', code: 'model_not_found' },
      );
    }
    const target = named && (await this.invocation.resolve(caller, named));
    if (!target) throw modelNotFound(body.model);
    const { provider } = target;
    const support = this.providers.embeddingSupport(provider.type);
    if (support === 'none') {
      throw badParam('model', `Provider "${provider.name}" is an ${provider.type} provider, which has no embeddings API`);
    }
    const inputs = inputsOf(body.input);
    if (support === 'text' && typeof inputs[0] !== 'string') {
      throw badParam('input', `Provider "${provider.name}" embeds text only; token arrays are for OpenAI-compatible providers`);
    }
    if (provider.type === 'local') this.checkLocal(target.model, body.dimensions);

    const headers = optionsFromHeaders(request.headers);
    const metadata = invokeMetadataOf(headers.metadata, undefined);
    if (metadata.problems.length > 0) throw badParam('metadata', metadata.problems.join('; '));
    const idempotencyKey = idempotencyKeyOf(request.headers, () =>
      openaiError(400, 'Idempotency-Key must be 1 to 255 visible ASCII characters', { param: 'Idempotency-Key' }),
    );
    const encoding = body.encoding_format ?? 'float';
    return {
      encoding,
      input: {
        target: { ...target, kind: 'embedding' },
        request: {
          model: target.model,
          input: inputs,
          ...(body.dimensions != null ? { dimensions: body.dimensions } : {}),
          ...(body.user != null ? { user: body.user } : {}),
        },
        doNotRecord: headers.doNotRecord || !this.recordInputs,
        metadata: metadata.metadata,
        ...(idempotencyKey ? { idempotencyKey } : {}),
        // No text here: kept even when the inputs are not.
        parameters: {
          encoding_format: encoding,
          input_count: inputs.length,
          ...(body.dimensions != null ? { dimensions: body.dimensions } : {}),
        },
        // As sent (the pipe proved it an object): the log keeps the client's own body.
        log: { requestData: request.body as Record<string, unknown>, ...wireLogFields(request) },
      },
    };
  }

  private checkLocal(model: string, dimensions: number | null | undefined): void {
    if (model !== LOCAL_EMBEDDING_MODEL) {
      throw badParam(
        'model',
        `The local provider embeds with 'local/${LOCAL_EMBEDDING_MODEL}' only; 'local/${model}' is not an embedding model`,
      );
    }
    if (dimensions != null && dimensions > LOCAL_EMBEDDING_MAX_DIMENSIONS) {
      throw badParam('dimensions', `local/${LOCAL_EMBEDDING_MODEL} makes 1 to ${LOCAL_EMBEDDING_MAX_DIMENSIONS} dimensions`);
    }
  }
}
