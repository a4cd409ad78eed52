import { MigrationInterface, QueryRunner } from 'typeorm';

/** Characters of a log's input, and of its output, that are indexed: the first and the last half of each. */
const SEARCH_TEXT_CHARS = 8192;
/** Characters of a log's error message that are indexed. */
const SEARCH_ERROR_CHARS = 1024;

/**
 * Full-text search over request logs (GET /v2/logs?q=, docs/performance.md "Full-text search over
 * request logs"). `search` is a stored generated tsvector, 'simple' configuration (lower case, no
 * stemming, no stop words: logs are in every language, and hold ids and code), of:
 * - the input: every string of `request_data`, the body the client sent, whatever its surface;
 * - the output: the reply's text (chat completion `choices[].message` content, refusal and tool
 *   arguments, the shape of every OpenAI-compatible, local and streamed answer; Anthropic's text blocks);
 * - the error message;
 * - one lexeme naming the project, which no query can spell (it holds a space), so the GIN index
 *   itself keeps projects apart (GIN cannot hold project_id without the btree_gin extension): a
 *   word frequent in another project costs a search here what its postings cost, never a bitmap
 *   of the other project's logs to recheck.
 * A doNotRecord log stores no request or response, so only its error is searchable. Each text is
 * bounded (SEARCH_TEXT_CHARS), so one huge log cannot swell the index. Stored MAIN: kept in the
 * row (compressed), while the large jsonb columns move out to TOAST first, so a scan that filters
 * on it does not fetch it from TOAST row by row. Made on the partitioned parent: every partition,
 * present or made later, has the column and its GIN index. Adding the column rewrites request_logs.
 */
export class RequestLogSearch1765700000000 implements MigrationInterface {
  name = 'RequestLogSearch1765700000000';

  async up(q: QueryRunner): Promise<void> {
    // Every string of a JSON value in document order, joined; when longer than max_chars, its first and last halves.
    await q.query(`
      CREATE FUNCTION request_log_text(doc jsonb, max_chars integer) RETURNS text
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT CASE WHEN length(t) <= max_chars THEN t ELSE left(t, max_chars / 2) || ' ' || right(t, max_chars / 2) END
          FROM (SELECT string_agg(s #>> '{}', ' ' ORDER BY n) AS t
                  FROM jsonb_path_query(doc, 'strict $.** ? (@.type() == "string")') WITH ORDINALITY AS strings (s, n)) AS joined
      $$`);
    const reply = [
      `'$.choices[*].message.content'`,
      `'$.choices[*].message.refusal'`,
      `'$.choices[*].message.tool_calls[*].function.arguments'`,
      `'$.content[*] ? (@.type == "text").text'`,
    ]
      .map((path) => `jsonb_path_query_array(provider_response, ${path})`)
      .join(' || ');
    await q.query(`
      ALTER TABLE request_logs ADD COLUMN search tsvector GENERATED ALWAYS AS (
        to_tsvector('simple', coalesce(request_log_text(request_data, ${SEARCH_TEXT_CHARS}), ''))
        || to_tsvector('simple', coalesce(request_log_text(${reply}, ${SEARCH_TEXT_CHARS}), ''))
        || to_tsvector('simple', left(coalesce(error, ''), ${SEARCH_ERROR_CHARS}))
        || array_to_tsvector(ARRAY['project ' || project_id::text])
      ) STORED`);
    await q.query('ALTER TABLE request_logs ALTER COLUMN search SET STORAGE MAIN');
    await q.query('CREATE INDEX request_logs_search_idx ON request_logs USING gin (search)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX request_logs_search_idx');
    await q.query('ALTER TABLE request_logs DROP COLUMN search');
    await q.query('DROP FUNCTION request_log_text(jsonb, integer)');
  }
}
