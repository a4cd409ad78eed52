import { openaiBodyDto } from '../../common/validation/zod-dto';
import { invalidOpenAIRequest } from '../embeddings.errors';
import { embeddingsBodySchema } from '../embeddings.schema';

/** `POST /v1/embeddings`'s body (OpenAI's), validated by the global pipe; the first problem is OpenAI's 400 naming it in `param`. */
export class EmbeddingsBodyDto extends openaiBodyDto(embeddingsBodySchema, (schema, body) => {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw invalidOpenAIRequest(parsed.error);
  return parsed.data;
}) {}
