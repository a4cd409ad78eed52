/** Connection-level failures (server down, restarting, pool exhausted) are 503, not a bug. */
export function isDatabaseUnavailable(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | null;
  if (!e) return false;
  if (e.code && /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENOTFOUND|57P0[123]|08\d{3}|53300)$/.test(e.code)) return true;
  return /Connection terminated|timeout exceeded when trying to connect|Driver not Connected|Embedded database busy/i.test(
    e.message ?? '',
  );
}

/** A unique constraint refused the row: a slug or name already taken, or a lost race to create it. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; driverError?: { code?: string } } | null;
  return e?.code === '23505' || e?.driverError?.code === '23505';
}
