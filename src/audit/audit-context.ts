import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The parts of a request the audit trail reads: the caller (set by the global guard) and the request id. */
export interface AuditedRequest {
  id?: string;
  /** express's `req.ip`: the socket's address, or X-Forwarded-For's from a trusted proxy (docs/security.md, "Client addresses"). */
  ip?: string;
  principal?: {
    kind: string;
    keyId: string | null;
    keyName?: string | null;
    actingAdmin?: true;
    /** The person signed in with OpenID Connect (docs/security.md, "Audit trail"). */
    user?: { id: string; email: string };
  };
}

const storage = new AsyncLocalStorage<AuditedRequest>();
/** Management requests being served; the storage is switched off when none is. */
let served = 0;
/** How long a management request may go on after its client left (longer than any statement runs). */
const ABANDONED_REQUEST_GRACE_MS = 10 * 60_000;

/**
 * Middleware for the management routes (`/v2`): makes the request reachable from the services that
 * write audit events, without threading it through every call. Not on the invoke routes, whose
 * changes are not audited.
 *
 * On Node 20 an AsyncLocalStorage in use installs promise hooks that every promise of the process
 * pays for, invokes included (docs/performance-history.md, "Issue 21"); once used it stays on until
 * `disable()`. So it is on only while a management request is being served: the last one to
 * finish switches it off (its audit events are written before it answers).
 */
export function auditContext(req: IncomingMessage, res: ServerResponse, next: () => void): void {
  served++;
  let done = false;
  const finished = () => {
    if (done) return;
    done = true;
    if (--served === 0) storage.disable();
  };
  res.once('finish', finished);
  // A client that left does not end the work it asked for: its audit events still need the
  // request, so the storage stays on for that request a while longer (switching it off is only
  // a saving).
  res.once('close', () => {
    if (!res.writableFinished) setTimeout(finished, ABANDONED_REQUEST_GRACE_MS).unref();
  });
  storage.run(req as AuditedRequest, next);
}

/** The request being served, or undefined outside one (the CLI on the database, start-up). */
export const currentAuditedRequest = (): AuditedRequest | undefined => storage.getStore();
