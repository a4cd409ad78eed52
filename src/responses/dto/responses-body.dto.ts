import { openaiBodyDto } from '../../common/validation/zod-dto';
import { parseOpenAI } from '../../conversations/conversation-inputs';
import { compactBodySchema } from '../compaction-transcript';
import { responsesBodySchema } from '../responses.schema';

/** `POST /v1/responses` and `/v1/responses/input_tokens`: OpenAI's body, validated by the global pipe (and by a background job, from its stored request). */
export class ResponsesBodyDto extends openaiBodyDto(responsesBodySchema, parseOpenAI) {}

/** `POST /v1/responses/compact`'s body. */
export class CompactBodyDto extends openaiBodyDto(compactBodySchema, parseOpenAI) {}
