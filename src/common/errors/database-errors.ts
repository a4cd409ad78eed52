/** Connection-level failures (server down, restarting, pool exhausted) are 503, not a bug. */
export function isDatabaseUnavailable(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | null;
  if (!e) return false;
  if (e.code && /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENOTFOUND|57P0[123]|08\d{3}|53300)$/.test(e.code)) return true;
  return /Connection terminated|timeout exceeded when trying to connect|Driver not Connected|Embedded database busy/i.test(e.message ?? '');
}

/** Whether PostgreSQL failed with this SQLSTATE: the driver's error, or TypeORM's QueryFailedError around it. */
export function hasSqlState(err: unknown, state: string): boolean {
  const e = err as { code?: unknown; driverError?: { code?: unknown } } | null;
  return e?.code === state || e?.driverError?.code === state;
}

/** A unique constraint refused the row: a slug or name already taken, or a lost race to create it. */
export function isUniqueViolation(err: unknown): boolean {
  return hasSqlState(err, '23505');
}

/**
 * PostgreSQL refused text it cannot hold: U+0000 in text (22021) or jsonb (22P05). Inputs are
 * refused before they get here (docs/security.md "Bounded inputs"); this is the net under them, a
 * client's 400 rather than a 500.
 */
export function isUnstorableText(err: unknown): boolean {
  const e = err as { code?: string; driverError?: { code?: string } } | null;
  const code = e?.code ?? e?.driverError?.code;
  return code === '22021' || code === '22P05';
}
