export interface LogFilters {
  slug?: string;
  environment?: string;
  version?: number;
  model?: string;
  provider?: string;
  keyId?: string;
  threadId?: string;
  requestId?: string;
  traceId?: string;
  status?: { exact: number } | { success: boolean };
  from?: Date;
  to?: Date;
  metadata?: { key: string; value: string };
}

/** Conditions joined with AND, and their named parameters (`:name`, as TypeORM's query builder takes them). */
export interface SqlConditions {
  /**
   * What the plain list walks its id order with: equalities a keyset index `(project_id, <column>,
   * id)` answers (docs/pagination-explain.md), and the time range, which follows the id order.
   */
  keyset: string[];
  /** The others (a status class, environment, metadata), checked on the rows the walk yields: they may pass few of them. */
  other: string[];
  parameters: Record<string, unknown>;
}

/** GET /v2/logs' filters as conditions on the request_logs row aliased `a`. */
export function filterConditions(a: string, filters: LogFilters): SqlConditions {
  const keyset: string[] = [];
  const other: string[] = [];
  const parameters: Record<string, unknown> = {};
  const add = (condition: string, values: Record<string, unknown> = {}, indexed = true) => {
    (indexed ? keyset : other).push(condition);
    Object.assign(parameters, values);
  };
  if (filters.slug !== undefined) add(`${a}.prompt_slug = :slug`, { slug: filters.slug });
  if (filters.environment !== undefined) add(`${a}.environment = :environment`, { environment: filters.environment }, false);
  if (filters.version !== undefined) add(`${a}.version = :version`, { version: filters.version });
  if (filters.model !== undefined) add(`${a}.model = :model`, { model: filters.model });
  if (filters.provider !== undefined) add(`${a}.provider_name = :provider`, { provider: filters.provider });
  if (filters.keyId !== undefined) add(`${a}.api_key_id = :keyId`, { keyId: filters.keyId });
  if (filters.threadId !== undefined) add(`${a}.thread_id = :threadId`, { threadId: filters.threadId });
  if (filters.requestId !== undefined) add(`${a}.request_id = :requestId`, { requestId: filters.requestId });
  if (filters.traceId !== undefined) add(`${a}.trace_id = :traceId`, { traceId: filters.traceId });
  if (filters.status && 'exact' in filters.status) add(`${a}.status = :status`, { status: filters.status.exact });
  if (filters.status && 'success' in filters.status) {
    add(filters.status.success ? `${a}.status BETWEEN 200 AND 299` : `${a}.status NOT BETWEEN 200 AND 299`, {}, false);
  }
  if (filters.from) add(`${a}.started_at >= :from`, { from: filters.from });
  if (filters.to) add(`${a}.started_at < :to`, { to: filters.to });
  if (filters.metadata) {
    // Containment only, which the GIN index answers (a `->>` comparison beside it would make every
    // such query scan the project's logs): the value as a string, and as a number when it is one.
    const { key, value } = filters.metadata;
    const asNumber = Number(value);
    const numeric = Number.isFinite(asNumber) && String(asNumber) === value;
    add(
      numeric ? `(${a}.metadata @> :asText::jsonb OR ${a}.metadata @> :asNumber::jsonb)` : `${a}.metadata @> :asText::jsonb`,
      {
        asText: JSON.stringify({ [key]: value }),
        asNumber: JSON.stringify({ [key]: asNumber }),
      },
      false,
    );
  }
  return { keyset, other, parameters };
}
