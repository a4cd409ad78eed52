import { badRequest } from './api-exception';

/** The registry's and the credentials' 400: one message, and one `path: reason` line per problem in `details`. */
export const INVALID_BODY = 'Invalid request body';
export const invalidBody = (details: string[]) => badRequest(INVALID_BODY, details);
