import type { NextFunction, Request, Response } from 'express';
import { answerBeforeRouting } from './early-error';

/** `%00` decodes to U+0000 in a path parameter or a query value; nothing else in a URL can. */
const ENCODED_NUL = '%00';

export const NUL_IN_URL = 'The request URL contains U+0000 (%00), which no name, id or filter value can hold';

/**
 * Refuses a URL whose path or query string spells U+0000 with a 400, before any route reads it:
 * PostgreSQL stores no U+0000 in text, so a slug, id or filter holding one failed in SQL as a 500
 * (issue: the /v1/conversations metadata filter). A raw NUL byte never arrives (Node's HTTP parser
 * refuses it), and invalid percent-encoded UTF-8 decodes to U+FFFD or is refused by the router, so
 * this one check covers every path parameter and query value (docs/security.md "Bounded inputs").
 */
export function refuseUnstorableUrl(req: Request, res: Response, next: NextFunction): void {
  if (req.url.includes(ENCODED_NUL)) return answerBeforeRouting(req, res, 400, NUL_IN_URL);
  next();
}
