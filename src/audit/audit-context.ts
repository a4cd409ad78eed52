import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The parts of a request the audit trail reads: the caller (set by the global guard) and the request id. */
export interface AuditedRequest {
  id?: string;
  principal?: { kind: string; keyId: string | null; keyName?: string | null; actingAdmin?: true };
}

const storage = new AsyncLocalStorage<AuditedRequest>();

/**
 * Middleware for the management routes (`/v2`): makes the request reachable from the services that
 * write audit events, without threading it through every call. Not on the invoke routes, whose
 * changes are not audited (AsyncLocalStorage has a cost per request: docs/performance.md).
 */
export function auditContext(req: IncomingMessage, _res: ServerResponse, next: () => void): void {
  storage.run(req as AuditedRequest, next);
}

/** The request being served, or undefined outside one (the CLI on the database, start-up). */
export const currentAuditedRequest = (): AuditedRequest | undefined => storage.getStore();
