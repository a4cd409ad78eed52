import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { InstanceAuditLog } from '../audit/instance-audit-log';
import { scimError } from '../common/errors';
import { newId } from '../common/ids';
import { scimActor, ScimClient } from './scim-http';
import { listQuery, resourceNotFound, userResource } from './scim-resources';
import { listResponse } from './scim-schemas';
import { ScimSessions } from './scim-sessions';
import { checkUserFilter, compileUserPatch, emailOf, parseUserResource, personNameOf, sameUser, ScimUserState } from './scim-user-input';
import { ScimUserRow, ScimUsersRepository, stateOf } from './scim-users.repository';

/** What the instance trail keeps of a user's record (no e-mail list: the userName says who). */
const auditView = (s: ScimUserState) => ({ userName: s.userName, externalId: s.externalId, displayName: s.displayName, active: s.active });

/**
 * SCIM Users (RFC 7644; docs/security.md, "SCIM"): a workspace directory's users. A create links
 * the instance's user with that e-mail (or makes one) to this workspace's directory; the SCIM id
 * is the Parley user id. `active: false` suspends the person's roles in this workspace at once
 * (UserAccessRepository reads it on every request); a delete removes the record, their memberships
 * and their SCIM group memberships in this workspace, and keeps the instance's user (other
 * workspaces may know them). Either unmakes an instance admin, and ends the person's sessions
 * when they have no role left anywhere.
 * Each change commits with its instance audit row.
 */
@Injectable()
export class ScimUsersService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly users: ScimUsersRepository,
    private readonly audit: InstanceAuditLog,
    private readonly sessions: ScimSessions,
  ) {}

  async create(client: ScimClient, body: unknown): Promise<Record<string, unknown>> {
    const state = parseUserResource(body)(null);
    const email = emailOf(state);
    const now = new Date();
    const row = await this.dataSource.transaction(async (manager) => {
      const userId = await this.users.userForEmail(manager, { id: newId(), email, name: personNameOf(state), now });
      if (await this.users.find(client.workspaceId, userId, manager)) {
        throw scimError(409, `The user ${email} is provisioned in this workspace already (id ${userId})`, 'uniqueness');
      }
      const taken = await this.users.takenBy(manager, client.workspaceId, state, null);
      if (taken) throw scimError(409, `Another user of this directory has this ${taken}`, 'uniqueness');
      await this.users.insert(manager, client.workspaceId, userId, state, now);
      if (!state.active) await this.revokeInstanceAdmin(manager, client, userId);
      await this.audit.record(manager, {
        workspaceId: client.workspaceId,
        action: 'scim_user.created',
        resourceType: 'scim_user',
        resourceId: userId,
        after: auditView(state),
        actor: scimActor(client),
        clientAddress: client.clientAddress,
      });
      return rowOf(userId, state, now, now);
    });
    if (!state.active) await this.sessions.endWhereRoleless([row.user_id]);
    return userResource(row, client.baseUrl);
  }

  async get(client: ScimClient, userId: string): Promise<Record<string, unknown>> {
    const row = await this.users.find(client.workspaceId, userId);
    if (!row) throw resourceNotFound('User', userId);
    return userResource(row, client.baseUrl);
  }

  async list(client: ScimClient, query: Record<string, unknown>): Promise<Record<string, unknown>> {
    const { conditions, startIndex, count } = listQuery(query);
    const { rows, total } = await this.users.list(client.workspaceId, checkUserFilter(conditions), startIndex - 1, count);
    return listResponse(
      rows.map((row) => userResource(row, client.baseUrl)),
      total,
      startIndex,
    );
  }

  /** PUT: the whole user replaced (`active` absent stays as it is). */
  replace(client: ScimClient, userId: string, body: unknown): Promise<Record<string, unknown>> {
    return this.change(client, userId, parseUserResource(body));
  }

  /** PATCH: the operations applied in order, all or none. */
  patch(client: ScimClient, userId: string, body: unknown): Promise<Record<string, unknown>> {
    return this.change(client, userId, compileUserPatch(body));
  }

  private async change(
    client: ScimClient,
    userId: string,
    next: (current: ScimUserState) => ScimUserState,
  ): Promise<Record<string, unknown>> {
    const now = new Date();
    const { row, before, after } = await this.dataSource.transaction(async (manager) => {
      const current = await this.users.find(client.workspaceId, userId, manager, true);
      if (!current) throw resourceNotFound('User', userId);
      const before = stateOf(current);
      const after = next(before);
      const email = emailOf(after);
      if (sameUser(before, after)) return { row: current, before, after };
      const taken = await this.users.takenBy(manager, client.workspaceId, after, current.user_id);
      if (taken) throw scimError(409, `Another user of this directory has this ${taken}`, 'uniqueness');
      await this.users.update(manager, client.workspaceId, current.user_id, after, now);
      await this.users.syncPerson(manager, client.workspaceId, current.user_id, email, personNameOf(after));
      if (before.active && !after.active) await this.revokeInstanceAdmin(manager, client, current.user_id);
      const verb = before.active === after.active ? 'updated' : after.active ? 'reactivated' : 'deactivated';
      await this.audit.record(manager, {
        workspaceId: client.workspaceId,
        action: `scim_user.${verb}`,
        resourceType: 'scim_user',
        resourceId: current.user_id,
        before: auditView(before),
        after: auditView(after),
        actor: scimActor(client),
        clientAddress: client.clientAddress,
      });
      return { row: rowOf(current.user_id, after, current.created_at, now), before, after };
    });
    if (before.active && !after.active) await this.sessions.endWhereRoleless([row.user_id]);
    return userResource(row, client.baseUrl);
  }

  async delete(client: ScimClient, userId: string): Promise<void> {
    const row = await this.dataSource.transaction(async (manager) => {
      // Locked first: a group change adding this user waits, or is waited for (ScimUsersRepository.provisioned).
      const current = await this.users.find(client.workspaceId, userId, manager, true);
      if (!current) throw resourceNotFound('User', userId);
      const removed = await this.users.removeFromWorkspace(manager, client.workspaceId, current.user_id);
      await this.revokeInstanceAdmin(manager, client, current.user_id);
      await this.audit.record(manager, {
        workspaceId: client.workspaceId,
        action: 'scim_user.deleted',
        resourceType: 'scim_user',
        resourceId: current.user_id,
        before: { ...auditView(stateOf(current)), memberships: removed.memberships, groups: removed.groups },
        actor: scimActor(client),
        clientAddress: client.clientAddress,
      });
      return current;
    });
    await this.sessions.endWhereRoleless([row.user_id]);
  }

  /**
   * The company's directory says this person left: an instance admin stops being one as well
   * (docs/security.md, "SCIM"), in the same transaction, with its own instance audit row. Their
   * sessions then end if no role is left them anywhere.
   */
  private async revokeInstanceAdmin(manager: EntityManager, client: ScimClient, userId: string): Promise<void> {
    const email = await this.users.revokeInstanceAdmin(manager, userId);
    if (email === null) return;
    await this.audit.record(manager, {
      workspaceId: client.workspaceId,
      action: 'user.instance_admin_revoked',
      resourceType: 'user',
      resourceId: userId,
      before: { email, instanceAdmin: true },
      after: { email, instanceAdmin: false, reason: 'scim_deactivated' },
      actor: scimActor(client),
      clientAddress: client.clientAddress,
    });
  }
}

function rowOf(userId: string, s: ScimUserState, createdAt: Date, updatedAt: Date): ScimUserRow {
  return {
    user_id: userId,
    user_name: s.userName,
    external_id: s.externalId,
    given_name: s.givenName,
    family_name: s.familyName,
    display_name: s.displayName,
    emails: s.emails,
    active: s.active,
    created_at: createdAt,
    updated_at: updatedAt,
  };
}
