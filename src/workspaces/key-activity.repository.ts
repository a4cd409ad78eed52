import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import type { Scope } from '../auth/scopes';
import { ApiKeyListItemDto } from './dto/api-key.dto';

interface KeyActivityRow {
  id: string;
  name: string;
  key_prefix: string;
  project_id: string;
  scopes: Scope[] | null;
  environments: string[] | null;
  created_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
  spend_today: string;
  spend_month: string;
  budget_day: string | null;
  budget_month: string | null;
}

const DAY_MS = 86_400_000;

/**
 * A project's keys with their spend, budgets and last use, in one query for the whole list
 * (docs/usage.md, "Keys: spend and last use"). Nothing is written per call for it: the last use is
 * the newest hourly usage rollup of the key (the (project_id, api_key_id, hour) index: one index
 * probe per key), the spend sums this month's daily rollups (at most 31 days of the project's),
 * the budgets are the key's own limit settings, field by field over the project's default for keys
 * (subject `keys`, as src/limits reads them).
 */
@Injectable()
export class KeyActivityRepository {
  constructor(private readonly dataSource: DataSource) {}

  async list(projectId: string, now = new Date()): Promise<ApiKeyListItemDto[]> {
    const today = new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS);
    const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
    const rows: KeyActivityRow[] = await this.dataSource.query(
      `SELECT k.id, k.name, k.key_prefix, k.project_id, k.scopes, k.environments, k.created_at, k.revoked_at,
              last.hour AS last_used_at,
              coalesce(spend.today, 0)::text AS spend_today, coalesce(spend.month, 0)::text AS spend_month,
              coalesce(own.budget_usd_per_day, dflt.budget_usd_per_day)::text AS budget_day,
              coalesce(own.budget_usd_per_month, dflt.budget_usd_per_month)::text AS budget_month
         FROM api_keys k
         LEFT JOIN LATERAL (
                SELECT r.hour FROM usage_rollups r
                 WHERE r.project_id = $1 AND r.api_key_id = k.id
                 ORDER BY r.hour DESC LIMIT 1) last ON true
         LEFT JOIN (
                SELECT d.api_key_id, sum(d.cost_usd) FILTER (WHERE d.day >= $2) AS today, sum(d.cost_usd) AS month
                  FROM usage_rollups_daily d
                 WHERE d.project_id = $1 AND d.day >= $3 AND d.api_key_id IS NOT NULL
                 GROUP BY d.api_key_id) spend ON spend.api_key_id = k.id
         LEFT JOIN limit_settings own ON own.project_id = $1 AND own.subject = k.id::text
         LEFT JOIN limit_settings dflt ON dflt.project_id = $1 AND dflt.subject = 'keys'
        WHERE k.project_id = $1
        ORDER BY k.id`,
      [projectId, today, month],
    );
    return rows.map((row) => ({
      id: row.id,
      name: row.name,
      prefix: row.key_prefix,
      projectId: row.project_id,
      scopes: row.scopes,
      environments: row.environments,
      createdAt: new Date(row.created_at).toISOString(),
      revokedAt: row.revoked_at ? new Date(row.revoked_at).toISOString() : null,
      lastUsedAt: row.last_used_at ? new Date(row.last_used_at).toISOString() : null,
      spendTodayUsd: trimmed(row.spend_today),
      spendMonthUsd: trimmed(row.spend_month),
      budgetUsdPerDay: row.budget_day === null ? null : trimmed(row.budget_day),
      budgetUsdPerMonth: row.budget_month === null ? null : trimmed(row.budget_month),
    }));
  }
}

/** "0.002750000" -> "0.00275"; "5.000" -> "5" (numeric's text keeps the scale). */
const trimmed = (text: string): string => (text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text);
