import type { Request, Response } from 'express';

import { resourceError } from '../errors/api-exception';
import { asOpenAIError, isOpenAIPath } from '../errors/openai-error';
import { asScimError, isScimPath, SCIM_CONTENT_TYPE } from '../errors/scim-error';

/**
 * Answers a request refused before routing (so ApiExceptionFilter never sees it) with the error
 * shape of its surface: `{error: {message}}`, OpenAI's under /v1, SCIM's under /scim.
 */
export function answerBeforeRouting(req: Request, res: Response, status: number, message: string): void {
  const resource = resourceError(status, message);
  const scim = isScimPath(req.path);
  const exception = isOpenAIPath(req.path) ? asOpenAIError(resource) : scim ? asScimError(resource) : resource;
  // json() keeps a Content-Type already set.
  if (scim) res.setHeader('Content-Type', SCIM_CONTENT_TYPE);
  res.status(exception.getStatus()).json(exception.body);
}
