/** OpenAI's request errors, shared with the other OpenAI-shaped surfaces (common/errors/openai-request-errors.ts). */
export { badParam, invalidRequest, modelNotFound, paramOf } from '../common/errors/openai-request-errors';
