import type { z, ZodType } from 'zod';

import { isMalformedJsonBody, isPlainObject, malformedBodyReason, NESTED_TOO_DEEP_BODY } from '../../common/errors';
import { zodDto } from '../../common/validation/zod-dto';
import { anthropicError, invalidField } from '../anthropic-errors';
import { countTokensBodySchema, messagesBodySchema, UNSUPPORTED_FIELDS } from '../messages.schema';
import { invalidRequest } from '../request-errors';

/**
 * A body in Anthropic's wire format, validated by the global pipe (docs/architecture.md, "The
 * request lifecycle"): the body parser's markers and anything but an object are a 400, a field of
 * the Messages API Parley does not translate is a 400 naming it, and so is the first problem zod
 * finds, in Anthropic's error shape.
 */
function anthropicBodyDto<S extends ZodType>(schema: S) {
  return zodDto(schema, (raw): z.output<S> => {
    if (raw === NESTED_TOO_DEEP_BODY || isMalformedJsonBody(raw))
      throw anthropicError(400, `There was an issue with the request body: ${malformedBodyReason(raw)}`);
    if (!isPlainObject(raw)) throw anthropicError(400, 'There was an issue with the request body: expected a JSON object');
    const unsupported = UNSUPPORTED_FIELDS.find((field) => field in raw);
    if (unsupported) throw invalidField(unsupported, "is not supported by Parley's /v1/messages");
    const parsed = schema.safeParse(raw);
    if (!parsed.success) throw invalidRequest(parsed.error);
    return parsed.data;
  });
}

/** `POST /v1/messages`'s body (Anthropic's MessageCreateParams). */
export class MessagesBodyDto extends anthropicBodyDto(messagesBodySchema) {}

/** `POST /v1/messages/count_tokens`'s body (Anthropic's MessageCountTokensParams). */
export class CountTokensBodyDto extends anthropicBodyDto(countTokensBodySchema) {}
