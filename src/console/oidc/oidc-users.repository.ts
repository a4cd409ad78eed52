import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { InstanceAuditLog } from '../../audit/instance-audit-log';
import { isUniqueViolation } from '../../common/errors';
import { newId } from '../../common/ids';

/** A person as the provider vouched for them, already checked (e-mail verified and allowed, groups bounded). */
export interface VerifiedIdentity {
  issuer: string;
  subject: string;
  email: string;
  name: string | null;
  groups: readonly string[];
}

export interface SignedInUser {
  id: string;
  email: string;
  /** False: deactivated; nothing about them was changed. */
  active: boolean;
}

interface UserRow {
  id: string;
  email: string;
  name: string | null;
  oidc_issuer: string | null;
  oidc_subject: string | null;
  instance_admin: boolean;
  active: boolean;
}

/** Another account already holds this e-mail (a different subject at the same provider): not linked, nothing changed. */
export class AccountConflict extends Error {}

const COLUMNS = 'id, email, name, oidc_issuer, oidc_subject, instance_admin, active';

/**
 * The users table as sign-in changes it (docs/security.md, "Sign-in"), in one transaction: the user
 * found by (issuer, subject), else by e-mail (linked: a row made by SCIM or by adding a member
 * before their first sign-in), else created; then their name, e-mail and sign-in time, the groups
 * claim of this sign-in in place of the last one's, and the instance admin bootstrap.
 */
@Injectable()
export class OidcUsersRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: InstanceAuditLog,
  ) {}

  async signIn(identity: VerifiedIdentity, makeInstanceAdmin: boolean): Promise<SignedInUser> {
    try {
      return await this.dataSource.transaction((manager) => this.signInWith(manager, identity, makeInstanceAdmin));
    } catch (err) {
      // Two first sign-ins of one person at once: the loser finds the winner's row.
      if (!isUniqueViolation(err)) throw err;
      return await this.dataSource.transaction((manager) => this.signInWith(manager, identity, makeInstanceAdmin));
    }
  }

  private async signInWith(manager: EntityManager, identity: VerifiedIdentity, makeInstanceAdmin: boolean): Promise<SignedInUser> {
    const now = new Date();
    let user = await this.one(manager, `oidc_issuer = $1 AND oidc_subject = $2`, [identity.issuer, identity.subject]);
    let created = false;
    if (!user) {
      user = await this.one(manager, 'lower(email) = lower($1)', [identity.email]);
      // The same provider vouches for another subject with this e-mail: linking would hand over that account.
      if (user && user.oidc_issuer === identity.issuer && user.oidc_subject !== null) throw new AccountConflict();
    }
    if (!user) {
      created = true;
      user = {
        id: newId(),
        email: identity.email,
        name: identity.name,
        oidc_issuer: identity.issuer,
        oidc_subject: identity.subject,
        instance_admin: false,
        active: true,
      };
      await manager.query(
        `INSERT INTO users (id, email, name, oidc_issuer, oidc_subject, instance_admin, active, created_at)
         VALUES ($1, $2, $3, $4, $5, false, true, $6)`,
        [user.id, user.email, user.name, user.oidc_issuer, user.oidc_subject, now],
      );
      await this.record(manager, user, 'user.created', null, { email: user.email, name: user.name, oidcIssuer: identity.issuer });
    }
    if (!user.active) return { id: user.id, email: user.email, active: false };
    if (user.email.toLowerCase() !== identity.email.toLowerCase()) {
      const taken = await this.one(manager, 'lower(email) = lower($1) AND id <> $2', [identity.email, user.id]);
      if (taken) throw new AccountConflict();
    }
    const promote = makeInstanceAdmin && !user.instance_admin;
    await manager.query(
      `UPDATE users SET email = $2, name = $3, oidc_issuer = $4, oidc_subject = $5, last_sign_in_at = $6,
              instance_admin = instance_admin OR $7
        WHERE id = $1`,
      [user.id, identity.email, identity.name, identity.issuer, identity.subject, now, promote],
    );
    if (!created && (user.oidc_subject !== identity.subject || user.oidc_issuer !== identity.issuer)) {
      const before = { oidcIssuer: user.oidc_issuer, oidcSubject: user.oidc_subject };
      await this.record(manager, user, 'user.linked', before, { oidcIssuer: identity.issuer, oidcSubject: identity.subject });
    }
    if (promote) await this.record(manager, user, 'user.instance_admin_granted', { instanceAdmin: false }, { instanceAdmin: true });
    await manager.query('DELETE FROM user_claim_groups WHERE user_id = $1', [user.id]);
    if (identity.groups.length > 0) {
      await manager.query('INSERT INTO user_claim_groups (user_id, name) SELECT $1, g FROM unnest($2::varchar[]) AS g', [
        user.id,
        identity.groups,
      ]);
    }
    return { id: user.id, email: identity.email, active: true };
  }

  private async one(manager: EntityManager, where: string, params: unknown[]): Promise<UserRow | null> {
    const rows: UserRow[] = await manager.query(`SELECT ${COLUMNS} FROM users WHERE ${where} FOR UPDATE`, params);
    return rows[0] ?? null;
  }

  /** A change to the user made by their own sign-in, in the instance's trail. */
  private record(
    manager: EntityManager,
    user: UserRow,
    action: string,
    before: Record<string, unknown> | null,
    after: Record<string, unknown>,
  ): Promise<void> {
    return this.audit.record(manager, {
      workspaceId: null,
      action,
      resourceType: 'user',
      resourceId: user.id,
      before,
      after,
      actor: { kind: 'user', userId: user.id, email: user.email },
    });
  }
}
