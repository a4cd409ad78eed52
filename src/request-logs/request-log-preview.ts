import { messageTextSql, previewText, READ_CHARS } from '../database/text-preview';

/** A log's preview as the list's query reads it (the selects below), before it is folded. */
export interface RawLogPreview {
  preview_input: string | null;
  preview_output: string | null;
}

/** What a log list shows of a call (docs/decisions.md, "Request log storage"): null under doNotRecord, which stores none of it. */
export interface LogPreview {
  input: string | null;
  output: string | null;
}

/** The last user message of the `messages` of a jsonb document (a provider request, a client's body), or NULL. */
const lastUserMessage = (doc: string) => `jsonb_path_query_array(${doc}, 'lax $.messages[*] ? (@.role == "user")') -> -1`;
/** A string `input` (embeddings, OpenAI's Responses), or the first string of an array of them. */
const stringInput = (doc: string) => `left(jsonb_path_query_first(${doc}, 'lax $.input ? (@.type() == "string")') #>> '{}', ${READ_CHARS})`;

/**
 * The list query's extra columns, as `[expression, alias]`, on the log aliased `a`. They read the
 * page's own rows and add no scan: each is a subquery, which PostgreSQL evaluates as each row of
 * the page is returned, after a sort and the LIMIT (test/list-previews-plans.serial.e2e-spec.ts).
 * A jsonb function detoasts its (TOASTed, compressed) argument on every call, so each document is
 * read into a value once (`OFFSET 0` keeps the planner from copying the expression into each use):
 * - input: the last user message sent to the provider (the rendered template and the caller's
 *   messages), else the caller's own body's, else a string `input`;
 * - output: the reply's text (a chat completion's message, the provider's own or the one a stream
 *   was assembled into: its content as a string or text parts, its refusal; Anthropic's text
 *   blocks), or the functions it calls (`calls weather`); an embedding's vector count and size.
 */
export function logPreviewSelects(a: string): [string, keyof RawLogPreview][] {
  const recorded = (sql: string) => `CASE WHEN ${a}.do_not_record THEN NULL ELSE ${sql} END`;
  const input = `(SELECT coalesce(${messageTextSql('u.m')}, ${stringInput(`${a}.request_data`)}, ${stringInput(`${a}.provider_request`)})
      FROM (SELECT coalesce(${lastUserMessage(`${a}.provider_request`)}, ${lastUserMessage(`${a}.request_data`)}) AS m OFFSET 0) u)`;
  const texts = [
    `jsonb_path_query_array(x.msg, 'lax $.content ? (@.type() == "string")')`,
    `jsonb_path_query_array(x.msg, 'lax $.content[*] ? (@.type == "text").text')`,
    `jsonb_path_query_array(x.msg, 'lax $.refusal ? (@.type() == "string")')`,
    `jsonb_path_query_array(x.blocks, 'lax $[*] ? (@.type == "text").text')`,
  ].join(' || ');
  const tools = [
    `jsonb_path_query_array(x.msg, 'lax $.tool_calls[*].function.name')`,
    `jsonb_path_query_array(x.blocks, 'lax $[*] ? (@.type == "tool_use").name')`,
  ].join(' || ');
  const reply = `(SELECT left(coalesce(
        (SELECT string_agg(r.t #>> '{}', ' ' ORDER BY r.n) FROM jsonb_array_elements(${texts}) WITH ORDINALITY AS r (t, n)),
        (SELECT 'calls ' || string_agg(c.t #>> '{}', ', ' ORDER BY c.n) FROM jsonb_array_elements(${tools}) WITH ORDINALITY AS c (t, n))
      ), ${READ_CHARS})
      FROM (SELECT coalesce(${a}.provider_response #> '{choices,0,message}', 'null') AS msg,
                   coalesce(${a}.provider_response -> 'content', 'null') AS blocks
             WHERE ${a}.provider_response IS NOT NULL OFFSET 0) x)`;
  const vectors = `${a}.provider_response ->> 'count'`;
  const embedded = `CASE WHEN ${vectors} = '1' THEN '1 vector' ELSE ${vectors} || ' vectors' END || ' of ' || (${a}.provider_response ->> 'dimensions') || ' dimensions'`;
  const output = `CASE WHEN ${a}.kind = 'embedding' THEN ${embedded} ELSE ${reply} END`;
  return [
    [recorded(input), 'preview_input'],
    [recorded(output), 'preview_output'],
  ];
}

/** The preview shown: the texts folded and cut. */
export function toLogPreview(raw: RawLogPreview | undefined, doNotRecord: boolean): LogPreview {
  if (!raw || doNotRecord) return { input: null, output: null };
  return { input: previewText(raw.preview_input), output: previewText(raw.preview_output) };
}
