import type { Request, Response } from 'express';

import { resourceError } from '../errors/api-exception';
import { asOpenAIError, isOpenAIPath } from '../errors/openai-error';

/**
 * Answers a request refused before routing (so ApiExceptionFilter never sees it) with the error
 * shape of its surface: `{error: {message}}`, or OpenAI's under /v1.
 */
export function answerBeforeRouting(req: Request, res: Response, status: number, message: string): void {
  const resource = resourceError(status, message);
  const exception = isOpenAIPath(req.path) ? asOpenAIError(resource) : resource;
  res.status(exception.getStatus()).json(exception.body);
}
