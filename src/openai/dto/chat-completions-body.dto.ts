import { openaiBodyDto } from '../../common/validation/zod-dto';
import { chatCompletionsBodySchema } from '../chat-completions.schema';
import { invalidRequest } from '../request-errors';

/** `POST /v1/chat/completions`'s body (OpenAI's), validated by the global pipe; the first problem is OpenAI's 400 naming it in `param`. */
export class ChatCompletionsBodyDto extends openaiBodyDto(chatCompletionsBodySchema, (schema, body) => {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw invalidRequest(parsed.error);
  return parsed.data;
}) {}
