import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

/** What a session stands for: a project or admin key, or (`user`) a person signed in with OpenID Connect. */
export type SessionKind = 'project' | 'admin' | 'user';

export interface SessionRow {
  kind: SessionKind;
  key_id: string | null;
  user_id: string | null;
  expires_at: Date;
}

export interface NewSession {
  id: string;
  tokenHash: string;
  kind: SessionKind;
  keyId: string | null;
  userId?: string | null;
  projectId: string | null;
  createdAt: Date;
  expiresAt: Date;
}

/**
 * console_sessions, a reference table looked up by token hash (the session names its project
 * through its key, so no query here needs a project scope).
 */
@Injectable()
export class ConsoleSessionsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(session: NewSession, manager: EntityManager = this.dataSource.manager): Promise<void> {
    await manager.query(
      `INSERT INTO console_sessions (id, token_hash, kind, key_id, user_id, project_id, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        session.id,
        session.tokenHash,
        session.kind,
        session.keyId,
        session.userId ?? null,
        session.projectId,
        session.createdAt,
        session.expiresAt,
      ],
    );
  }

  /** Revokes the session of `previousTokenHash` (if any) and inserts the new one, in one transaction (a sign-in's rotation). */
  async replace(previousTokenHash: string | null, session: NewSession): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      if (previousTokenHash) await this.revoke(previousTokenHash, session.createdAt, manager);
      await this.insert(session, manager);
    });
  }

  /** One unique-index lookup: the live session with this token hash. */
  async findLive(tokenHash: string, now: Date): Promise<SessionRow | null> {
    const rows: SessionRow[] = await this.dataSource.query(
      'SELECT kind, key_id, user_id, expires_at FROM console_sessions WHERE token_hash = $1 AND revoked_at IS NULL AND expires_at > $2',
      [tokenHash, now],
    );
    return rows[0] ?? null;
  }

  async revoke(tokenHash: string, now: Date, manager: EntityManager = this.dataSource.manager): Promise<boolean> {
    const result: unknown[] = await manager.query(
      'UPDATE console_sessions SET revoked_at = $2 WHERE token_hash = $1 AND revoked_at IS NULL RETURNING id',
      [tokenHash, now],
    );
    return updatedRows(result).length > 0;
  }

  /** Ends every live session of a person (removed, deactivated): on every instance, since each request re-reads its session. */
  async revokeAllOfUser(userId: string, now: Date, manager: EntityManager = this.dataSource.manager): Promise<number> {
    const result: unknown[] = await manager.query(
      'UPDATE console_sessions SET revoked_at = $2 WHERE user_id = $1 AND revoked_at IS NULL RETURNING id',
      [userId, now],
    );
    return updatedRows(result).length;
  }

  /** The same for several people at once (those a group role's removal left without a role). */
  async revokeAllOfUsers(userIds: readonly string[], now: Date, manager: EntityManager = this.dataSource.manager): Promise<number> {
    if (userIds.length === 0) return 0;
    const result: unknown[] = await manager.query(
      'UPDATE console_sessions SET revoked_at = $2 WHERE user_id = ANY($1::uuid[]) AND revoked_at IS NULL RETURNING id',
      [userIds, now],
    );
    return updatedRows(result).length;
  }

  /** Rows expired before `before` serve nothing any more. */
  async deleteExpired(before: Date): Promise<void> {
    await this.dataSource.query('DELETE FROM console_sessions WHERE expires_at < $1', [before]);
  }
}

/** TypeORM answers an UPDATE ... RETURNING with [rows, rowCount] on PostgreSQL (and on the PGlite pool). */
function updatedRows(result: unknown[]): unknown[] {
  return Array.isArray(result[0]) ? result[0] : result;
}
