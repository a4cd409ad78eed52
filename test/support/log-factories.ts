import { TestApp } from './test-app';

export interface BulkLogOptions {
  /** The reply text of each log (null: a failed call, no response); default: none. */
  outputs?: (string | null)[];
  slug?: string;
  /** The first log's start time; each next log starts 1 ms later, so ids are in array order. */
  startMs?: number;
}

/**
 * Request logs written straight into the table in one statement (as scripts/seed-logs.js does),
 * the i-th with `inputs[i]` as its user message and UUIDv7 id and start time `startMs + i`:
 * oldest first. The search column is computed by PostgreSQL as for any log. Returns the ids.
 */
export async function bulkInsertLogs(t: TestApp, projectId: string, inputs: string[], opts: BulkLogOptions = {}): Promise<string[]> {
  const startMs = opts.startMs ?? Date.now() - inputs.length - 60_000;
  const outputs = opts.outputs ?? inputs.map(() => null);
  const rows: { id: string }[] = await t.dataSource.query(
    `INSERT INTO request_logs (project_id, id, prompt_slug, kind, environment, url, stream, do_not_record, metadata, parameters,
                               request_data, provider_response, status, error, latency_ms, started_at)
     SELECT $1::uuid, (lpad(to_hex($2::bigint + n - 1), 12, '0') || '7' || substr(md5(n::text || $1::text), 1, 3) || '8' || substr(md5(n::text), 1, 15))::uuid,
            $5, 'prompt', 'production', '/bulk', false, false, '{}', '{}',
            jsonb_build_object('messages', jsonb_build_array(jsonb_build_object('role', 'user', 'content', input))),
            CASE WHEN output IS NOT NULL THEN jsonb_build_object('choices', jsonb_build_array(
              jsonb_build_object('index', 0, 'message', jsonb_build_object('role', 'assistant', 'content', output)))) END,
            CASE WHEN output IS NULL THEN 502 ELSE 200 END, CASE WHEN output IS NULL THEN 'bulk failure' END,
            10, to_timestamp(($2::bigint + n - 1) / 1000.0)
       FROM unnest($3::text[], $4::text[]) WITH ORDINALITY AS u (input, output, n)
      ORDER BY n
     RETURNING id`,
    [projectId, startMs, inputs, outputs, opts.slug ?? 'bulk'],
  );
  return rows.map((row) => row.id).sort();
}
