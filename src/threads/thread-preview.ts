import { messageTextSql, messageToolsSql, previewText, toolsText } from '../database/text-preview';

/** How far a preview counts a thread's messages: a long thread costs this many index entries, not all of them. */
export const PREVIEW_COUNT_CAP = 1000;

/** One message as the list's query reads it: its place in its turn, role, text (cut), tool names, and the turn's deleted items. */
interface RawMessage {
  index: number;
  role: string | null;
  text: string | null;
  tools: unknown;
  deleted: string[] | null;
}

/** A thread's preview as the list's query reads it (the selects below). */
export interface RawThreadPreview {
  preview_first: RawMessage | null;
  preview_last: RawMessage | null;
  preview_count: number | string;
  preview_cost: { calls: number | string; cost: string | null } | null;
}

export interface MessagePreview {
  role: string;
  text: string;
}

/** What a thread list shows of a thread (docs/decisions.md, "Threads and messages"). */
export interface ThreadPreview {
  first: MessagePreview | null;
  last: MessagePreview | null;
  messageCount: number;
  messageCountCapped: boolean;
  calls: number;
  costUsd: string | null;
}

/**
 * The thread's first (`ASC`) or last (`DESC`) live turn, and its first or last chat message. Only
 * `deleted_at` filters the walk, so it is the ordered index scan that stops at the first row (a
 * filter on the content would make the planner expect to read the whole thread, and sort it).
 */
function endMessage(t: string, project: string, direction: 'ASC' | 'DESC'): string {
  const [pick, index] =
    direction === 'ASC' ? ['0', '0'] : ['-1', `CASE WHEN jsonb_typeof(tm.content) = 'array' THEN jsonb_array_length(tm.content) - 1 END`];
  return `(SELECT jsonb_build_object('index', e.i, 'role', e.m ->> 'role', 'text', ${messageTextSql('e.m')},
                                     'tools', ${messageToolsSql('e.m')}, 'deleted', e.deleted_items)
     FROM (SELECT tm.content -> ${pick} AS m, ${index} AS i, tm.deleted_items FROM thread_messages tm
            WHERE tm.project_id = ${project} AND tm.thread_id = ${t}.id AND tm.deleted_at IS NULL
            ORDER BY tm.seq ${direction} LIMIT 1) e
    WHERE e.m IS NOT NULL)`;
}

/**
 * The thread list's extra columns with include=preview, as `[expression, alias]`, on the thread
 * aliased `t` of the project `project` (a parameter: with SCHEMA_MODE=partitioned the planner then
 * reads that project's partition only): each a subquery per thread of the page on an index that leads with (project_id,
 * thread_id), evaluated as each row of the page is returned, after the LIMIT:
 * - the first message of the first live turn and the last of the last one (the unique
 *   (project_id, thread_id, seq) index, one row each way);
 * - how many live thread messages it has, counted up to PREVIEW_COUNT_CAP;
 * - its calls and their cost, from its request logs (request_logs_thread_idx).
 */
export function threadPreviewSelects(t: string, project: string): [string, keyof RawThreadPreview][] {
  const count = `(SELECT count(*) FROM (SELECT 1 FROM thread_messages c
      WHERE c.project_id = ${project} AND c.thread_id = ${t}.id AND c.deleted_at IS NULL LIMIT ${PREVIEW_COUNT_CAP + 1}) capped)`;
  const cost = `(SELECT jsonb_build_object('calls', count(*), 'cost', sum(rl.cost_usd)::text) FROM request_logs rl
      WHERE rl.project_id = ${project} AND rl.thread_id = ${t}.id)`;
  return [
    [endMessage(t, project, 'ASC'), 'preview_first'],
    [endMessage(t, project, 'DESC'), 'preview_last'],
    [count, 'preview_count'],
    [cost, 'preview_cost'],
  ];
}

/** A message as the preview shows it: its role and text, none of what was deleted from it (docs/openai-conversations.md). */
function messagePreview(raw: RawMessage | null): MessagePreview | null {
  if (!raw || !raw.role) return null;
  const deleted = new Set(raw.deleted ?? []);
  const tools = Array.isArray(raw.tools) ? raw.tools.filter((_, k) => !deleted.has(`${raw.index}:${k + 1}`)) : [];
  const text = deleted.has(`${raw.index}:0`) ? null : previewText(raw.text);
  const shown = text ?? toolsText(tools);
  return shown === null ? null : { role: raw.role, text: shown };
}

export function toThreadPreview(raw: RawThreadPreview | undefined): ThreadPreview {
  const counted = Number(raw?.preview_count ?? 0);
  return {
    first: messagePreview(raw?.preview_first ?? null),
    last: messagePreview(raw?.preview_last ?? null),
    messageCount: Math.min(counted, PREVIEW_COUNT_CAP),
    messageCountCapped: counted > PREVIEW_COUNT_CAP,
    calls: Number(raw?.preview_cost?.calls ?? 0),
    costUsd: raw?.preview_cost?.cost ?? null,
  };
}
