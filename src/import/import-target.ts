import { z } from 'zod';

import { Principal } from '../auth/principal';
import { badRequest, forbidden, isMalformedJsonBody, malformedBodyReason, notFound } from '../common/errors';
import { INVALID_IMPORT } from './import.service';

/** POST /v2/import: `records` (the export's lines, parsed), and the target project for the admin key. */
export const importBodySchema = z.strictObject({
  workspace: z.string().min(1).max(64).optional(),
  project: z.string().min(1).max(64).optional(),
  records: z.array(z.unknown()),
});
export type ImportBody = z.output<typeof importBodySchema>;

export type ImportTarget = { kind: 'project'; projectId: string } | { kind: 'slugs'; workspace: string; project: string };

export function parseImportBody(body: unknown): ImportBody {
  if (isMalformedJsonBody(body)) throw badRequest(INVALID_IMPORT, [`body: ${malformedBodyReason(body)}`]);
  const parsed = importBodySchema.safeParse(body ?? {});
  if (!parsed.success)
    throw badRequest(
      INVALID_IMPORT,
      parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`),
    );
  return parsed.data;
}

/** A project key imports into its own project (naming another is 403); the admin key names one. */
export function importTargetOf(principal: Principal, body: ImportBody): ImportTarget {
  if (principal.kind === 'project') {
    const names = body.workspace !== undefined || body.project !== undefined;
    if (names && (body.workspace !== principal.workspaceSlug || body.project !== principal.projectSlug)) {
      throw forbidden('API key does not belong to this project');
    }
    return { kind: 'project', projectId: principal.projectId };
  }
  if (!body.workspace || !body.project) throw badRequest(INVALID_IMPORT, ['workspace and project are required with the admin key']);
  // A workspace admin key reaches its own workspace only.
  if (principal.workspaceSlug !== null && body.workspace !== principal.workspaceSlug) throw notFound('Workspace not found');
  return { kind: 'slugs', workspace: body.workspace, project: body.project };
}
