import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { InstanceAuditLog } from '../audit/instance-audit-log';
import { scimError } from '../common/errors';
import { newId } from '../common/ids';
import { checkGroupFilter, compileGroupPatch, parseGroupResource, ScimGroupState } from './scim-group-input';
import { ScimGroupsRepository } from './scim-groups.repository';
import { scimActor, ScimClient } from './scim-http';
import { invalidValue } from './scim-input';
import { groupResource, listQuery, resourceNotFound, ScimGroupRow } from './scim-resources';
import { listResponse } from './scim-schemas';
import { ScimSessions } from './scim-sessions';
import { ScimUsersRepository } from './scim-users.repository';

/** Member ids an audit row lists, at most (the counts are always there). */
const AUDITED_IDS = 100;

const auditView = (s: ScimGroupState) => ({ displayName: s.displayName, externalId: s.externalId, members: s.members.length });

/**
 * SCIM Groups (RFC 7644; docs/security.md, "SCIM"): a workspace directory's groups of its users.
 * A group gives its members the roles that group roles grant to its displayName in this workspace
 * (UserAccessRepository, on every request), so adding a member, removing one or renaming the group
 * changes access at once. People left without any role have their sessions ended. Each change
 * commits with its instance audit row.
 */
@Injectable()
export class ScimGroupsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly groups: ScimGroupsRepository,
    private readonly users: ScimUsersRepository,
    private readonly audit: InstanceAuditLog,
    private readonly sessions: ScimSessions,
  ) {}

  async create(client: ScimClient, body: unknown): Promise<Record<string, unknown>> {
    const state = parseGroupResource(body);
    const groupId = newId();
    const now = new Date();
    await this.dataSource.transaction(async (manager) => {
      if (await this.groups.nameTaken(manager, client.workspaceId, state.displayName, null)) throw nameTaken(state.displayName);
      await this.assertMembers(manager, client, state.members);
      await this.groups.insert(manager, client.workspaceId, groupId, state, now);
      await this.groups.changeMembers(manager, groupId, state.members, []);
      await this.audit.record(manager, {
        workspaceId: client.workspaceId,
        action: 'scim_group.created',
        resourceType: 'scim_group',
        resourceId: groupId,
        after: auditView(state),
        actor: scimActor(client),
        clientAddress: client.clientAddress,
      });
    });
    const row: ScimGroupRow = {
      id: groupId,
      display_name: state.displayName,
      external_id: state.externalId,
      created_at: now,
      updated_at: now,
    };
    const members = await this.groups.members(client.workspaceId, [groupId]);
    return groupResource(row, members.get(groupId)!, client.baseUrl);
  }

  async get(client: ScimClient, groupId: string, query: Record<string, unknown>): Promise<Record<string, unknown>> {
    const { withMembers } = listQuery({ excludedAttributes: query.excludedAttributes });
    const row = await this.groups.find(client.workspaceId, groupId);
    if (!row) throw resourceNotFound('Group', groupId);
    const members = withMembers ? (await this.groups.members(client.workspaceId, [row.id])).get(row.id)! : null;
    return groupResource(row, members, client.baseUrl);
  }

  async list(client: ScimClient, query: Record<string, unknown>): Promise<Record<string, unknown>> {
    const { conditions, startIndex, count, withMembers } = listQuery(query);
    const { rows, total } = await this.groups.list(client.workspaceId, checkGroupFilter(conditions), startIndex - 1, count);
    const members = withMembers
      ? await this.groups.members(
          client.workspaceId,
          rows.map((row) => row.id),
        )
      : null;
    return listResponse(
      rows.map((row) => groupResource(row, members?.get(row.id) ?? null, client.baseUrl)),
      total,
      startIndex,
    );
  }

  /** PUT: the whole group replaced, its members included. */
  async replace(client: ScimClient, groupId: string, body: unknown): Promise<Record<string, unknown>> {
    const state = parseGroupResource(body);
    const row = await this.change(client, groupId, () => state);
    const members = await this.groups.members(client.workspaceId, [row.id]);
    return groupResource(row, members.get(row.id)!, client.baseUrl);
  }

  /** PATCH: the operations applied in order, all or none; answered with 204 (RFC 7644 §3.5.2), as Entra's and Okta's examples expect. */
  async patch(client: ScimClient, groupId: string, body: unknown): Promise<void> {
    await this.change(client, groupId, compileGroupPatch(body));
  }

  private async change(client: ScimClient, groupId: string, next: (current: ScimGroupState) => ScimGroupState): Promise<ScimGroupRow> {
    const now = new Date();
    const outcome = await this.dataSource.transaction(async (manager) => {
      const current = await this.groups.find(client.workspaceId, groupId, manager, true);
      if (!current) throw resourceNotFound('Group', groupId);
      const members = (await this.groups.members(client.workspaceId, [current.id], manager)).get(current.id)!.map((m) => m.user_id);
      const before: ScimGroupState = { displayName: current.display_name, externalId: current.external_id, members };
      const after = next(before);
      const had = new Set(before.members);
      const has = new Set(after.members);
      const added = after.members.filter((id) => !had.has(id));
      const removed = before.members.filter((id) => !has.has(id));
      const renamed = after.displayName !== before.displayName;
      if (!renamed && after.externalId === before.externalId && added.length === 0 && removed.length === 0) {
        return { row: current, lost: [] };
      }
      if (renamed && (await this.groups.nameTaken(manager, client.workspaceId, after.displayName, current.id))) {
        throw nameTaken(after.displayName);
      }
      await this.assertMembers(manager, client, added);
      await this.groups.update(manager, client.workspaceId, current.id, after, now);
      await this.groups.changeMembers(manager, current.id, added, removed);
      await this.audit.record(manager, {
        workspaceId: client.workspaceId,
        action: 'scim_group.updated',
        resourceType: 'scim_group',
        resourceId: current.id,
        before: auditView(before),
        after: { ...auditView(after), added: added.slice(0, AUDITED_IDS), removed: removed.slice(0, AUDITED_IDS) },
        actor: scimActor(client),
        clientAddress: client.clientAddress,
      });
      const row: ScimGroupRow = { ...current, display_name: after.displayName, external_id: after.externalId, updated_at: now };
      // A renamed group no longer matches the group roles its old name had.
      return { row, lost: renamed ? before.members : removed };
    });
    await this.sessions.endWhereRoleless(outcome.lost);
    return outcome.row;
  }

  async delete(client: ScimClient, groupId: string): Promise<void> {
    const members = await this.dataSource.transaction(async (manager) => {
      const current = await this.groups.find(client.workspaceId, groupId, manager, true);
      if (!current) throw resourceNotFound('Group', groupId);
      const members = (await this.groups.members(client.workspaceId, [current.id], manager)).get(current.id)!.map((m) => m.user_id);
      await this.groups.delete(manager, client.workspaceId, current.id);
      await this.audit.record(manager, {
        workspaceId: client.workspaceId,
        action: 'scim_group.deleted',
        resourceType: 'scim_group',
        resourceId: current.id,
        before: auditView({ displayName: current.display_name, externalId: current.external_id, members }),
        actor: scimActor(client),
        clientAddress: client.clientAddress,
      });
      return members;
    });
    await this.sessions.endWhereRoleless(members);
  }

  /** Members are users this workspace's directory provisioned: any other id is refused, as if it did not exist. */
  private async assertMembers(manager: EntityManager, client: ScimClient, userIds: string[]): Promise<void> {
    const known = await this.users.provisioned(manager, client.workspaceId, userIds);
    const unknown = userIds.find((id) => !known.has(id));
    if (unknown) throw invalidValue(`members: no user ${unknown} in this directory`);
  }
}

const nameTaken = (displayName: string) =>
  scimError(409, `Another group of this directory is named ${JSON.stringify(displayName.slice(0, 200))}`, 'uniqueness');
