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
import { ProjectSettingsService } from '../project-settings/project-settings.service';
import { embeddingTargetProblem, ProvidersService } from '../providers';
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
  /** EMBEDDINGS_RECORD_INPUTS: false keeps no input text in any embedding call's log (a project can also turn it off). */
  private readonly recordInputs: boolean;

  constructor(
    private readonly invocation: InvocationService,
    private readonly providers: ProvidersService,
    private readonly settings: ProjectSettingsService,
    config: AppConfig,
  ) {
    this.recordInputs = config.embeddingsRecordInputs;
  }

  /** `body`: validated by the global pipe (EmbeddingsBodyDto); `request`: its headers and what its log records. */
  async parse(caller: ProjectPrincipal, body: EmbeddingsBody, request: WireRequest): Promise<EmbeddingsCall> {
    const named = targetOfModel(body.model);
    const target = named && (await this.invocation.resolve(caller, named, 'embedding'));
    if (!target) throw modelNotFound(body.model);
    const { provider } = target;
    const stored = target.deployment?.parameters.dimensions;
    if (stored !== undefined && body.dimensions != null && body.dimensions !== stored) {
      // The entry fixes the vector space its callers index in: another size would not compare.
      throw badParam('dimensions', `${target.slug}@${target.environment} makes ${stored} dimensions; omit dimensions or send ${stored}`);
    }
    const dimensions = body.dimensions ?? stored;
    const problem = embeddingTargetProblem(provider.type, provider.name, target.model, dimensions);
    if (problem) throw badParam(problem.param, problem.message);
    const inputs = inputsOf(body.input);
    if (this.providers.embeddingSupport(provider.type) === 'text' && typeof inputs[0] !== 'string') {
      throw badParam('input', `Provider "${provider.name}" embeds text only; token arrays are for OpenAI-compatible providers`);
    }

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
          ...(dimensions != null ? { dimensions } : {}),
          ...(body.user != null ? { user: body.user } : {}),
        },
        doNotRecord: headers.doNotRecord || !this.recordInputs || !(await this.settings.of(caller.projectId)).recordEmbeddingInputs,
        metadata: metadata.metadata,
        ...(idempotencyKey ? { idempotencyKey } : {}),
        // No text here: kept even when the inputs are not.
        parameters: {
          encoding_format: encoding,
          input_count: inputs.length,
          ...(dimensions != null ? { dimensions } : {}),
        },
        // As sent (the pipe proved it an object): the log keeps the client's own body.
        log: { requestData: request.body as Record<string, unknown>, ...wireLogFields(request) },
      },
    };
  }
}
