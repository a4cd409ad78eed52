import { badRequest } from '../common/errors';

/** The registry's 400: one message, and one `path: reason` line per problem in `details`. */
export const INVALID_BODY = 'Invalid request body';
export const invalidBody = (details: string[]) => badRequest(INVALID_BODY, details);
