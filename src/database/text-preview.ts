/**
 * Previews of what was said (docs/decisions.md, "Request log storage" and "Threads and messages"): a few words of a log's input and
 * reply, a thread's first and last message, read in the list's own query. SQL expressions (built here,
 * used by the request-log and thread repositories) cut each text to READ_CHARS in the database, so a
 * page carries a few hundred characters per row whatever the size of the stored message;
 * `previewText` folds the whitespace and cuts it to PREVIEW_CHARS.
 */
export const PREVIEW_CHARS = 160;
/** What the database returns: more than shown, so folding runs of whitespace still leaves PREVIEW_CHARS. */
export const READ_CHARS = 400;

/** Part types whose `text` is a message's words: chat completions' and Anthropic's `text`, Responses' input and output text. */
const TEXT_PARTS = `('text', 'input_text', 'output_text')`;

/**
 * SQL: the text of one chat message (`message`, a jsonb expression, evaluated once: `OFFSET 0`
 * keeps the planner from copying it into each use): its string content, or its text parts joined
 * by a space; NULL when it has none (tool calls only, images).
 */
export function messageTextSql(message: string): string {
  return `(SELECT CASE jsonb_typeof(one.m -> 'content')
        WHEN 'string' THEN left(one.m ->> 'content', ${READ_CHARS})
        WHEN 'array' THEN (SELECT left(string_agg(part ->> 'text', ' ' ORDER BY n), ${READ_CHARS})
                             FROM jsonb_array_elements(one.m -> 'content') WITH ORDINALITY AS parts (part, n)
                            WHERE part ->> 'type' IN ${TEXT_PARTS})
      END
     FROM (SELECT ${message} AS m OFFSET 0) AS one)`;
}

/** SQL: a jsonb array of the function names a chat message (`message`) calls. */
export function messageToolsSql(message: string): string {
  return `jsonb_path_query_array(${message}, 'lax $.tool_calls[*].function.name')`;
}

/** The preview of a text: whitespace folded to single spaces, at most PREVIEW_CHARS, `…` when cut; null when empty. */
export function previewText(text: string | null | undefined): string | null {
  if (text === null || text === undefined) return null;
  const folded = text.replace(/\s+/g, ' ').trim();
  if (folded === '') return null;
  // Cut on code points, never inside a surrogate pair.
  const chars = [...folded];
  return chars.length <= PREVIEW_CHARS
    ? folded
    : `${chars
        .slice(0, PREVIEW_CHARS - 1)
        .join('')
        .trimEnd()}…`;
}

/** "calls get_weather, lookup_order": what a reply that only calls tools says; null without names. */
export function toolsText(names: unknown): string | null {
  const list = Array.isArray(names) ? names.filter((name): name is string => typeof name === 'string' && name !== '') : [];
  return list.length > 0 ? previewText(`calls ${list.join(', ')}`) : null;
}
