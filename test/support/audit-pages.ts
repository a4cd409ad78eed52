import type { TestApp } from './test-app';

export const EMAIL_RULE = 'actorEmail must be an e-mail address of at most 320 characters';

export interface AuditActor {
  kind: string;
  keyId: string | null;
  keyName: string | null;
  userId: string | null;
  email: string | null;
}

export interface InstanceEvent {
  id: string;
  createdAt: string;
  workspace: string | null;
  actor: AuditActor;
  action: string;
  resourceType: string;
  resourceId: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  requestId: string | null;
  clientAddress: string | null;
}

/**
 * Reading the audit trails as a client: every page, `limit` at a time, checking that the pages
 * follow each other (each full but the last, newest first, no event twice).
 */
export function auditPages(t: () => TestApp) {
  async function allPages<T extends { id: string }>(
    path: string,
    headers: Record<string, string>,
    query: Record<string, string> = {},
    limit = 3,
  ): Promise<T[]> {
    const events: T[] = [];
    let after: string | undefined;
    for (let page = 0; page < 200; page++) {
      const res = await t()
        .http()
        .get(path)
        .query({ ...query, limit: String(limit), ...(after ? { after } : {}) })
        .set(headers);
      expect([path, res.status, res.body.error]).toEqual([path, 200, undefined]);
      expect(res.body.data.length).toBeLessThanOrEqual(limit);
      events.push(...res.body.data);
      if (!res.body.has_more) {
        const ids = events.map((e) => e.id);
        expect(new Set(ids).size).toBe(ids.length);
        expect(ids).toEqual([...ids].sort().reverse());
        return events;
      }
      expect(res.body.data.length).toBe(limit);
      after = res.body.last_id;
    }
    throw new Error('more pages than expected');
  }
  return {
    allPages,
    instanceTrail: (headers: Record<string, string>, query: Record<string, string> = {}, limit = 3) =>
      allPages<InstanceEvent>('/v2/admin/audit', headers, query, limit),
    workspaceIdOf: async (slug: string): Promise<string> =>
      (await t().dataSource.query('SELECT id FROM workspaces WHERE slug = $1', [slug]))[0].id,
  };
}
