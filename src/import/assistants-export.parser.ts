import { z } from 'zod';

import { ExportedMessage, exportedMessageSchema, ExportedThread, exportedThreadSchema } from './assistants-export.schema';

export const MAX_IMPORT_RECORDS = 10_000;

export interface ParsedExport {
  /** In first-seen order; each with its messages oldest first (created_at, then file order). */
  threads: { thread: ExportedThread; messages: ExportedMessage[] }[];
}

export type ParseResult = { ok: true; value: ParsedExport } | { ok: false; problems: string[] };

function describe(error: z.ZodError, where: string): string[] {
  return error.issues.map((issue) => `${where}: ${issue.path.length ? `${issue.path.join('.')}: ` : ''}${issue.message}`);
}

/** The lines of a JSON-lines file as records (blank lines skipped); bad JSON is a problem naming its line. */
export function recordsOfJsonLines(text: string): { records: unknown[]; problems: string[] } {
  const records: unknown[] = [];
  const problems: string[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      records.push(JSON.parse(line));
    } catch {
      problems.push(`line ${i + 1}: not JSON`);
    }
  });
  return { records, problems };
}

/**
 * Validates every record and groups messages under their threads. All problems are reported at
 * once and nothing is imported when there is any. A message whose thread is not in the export is
 * a problem, as are two records with the same id.
 */
export function parseAssistantsExport(records: unknown[]): ParseResult {
  const problems: string[] = [];
  if (records.length > MAX_IMPORT_RECORDS) return { ok: false, problems: [`at most ${MAX_IMPORT_RECORDS} records per import`] };
  const threads = new Map<string, { thread: ExportedThread; messages: ExportedMessage[] }>();
  const messages: { message: ExportedMessage; where: string }[] = [];
  const seen = new Set<string>();
  records.forEach((record, i) => {
    const where = `record ${i + 1}`;
    const kind = (record as { object?: unknown } | null)?.object;
    const schema = kind === 'thread' ? exportedThreadSchema : kind === 'thread.message' ? exportedMessageSchema : null;
    if (!schema) return problems.push(`${where}: "object" must be "thread" or "thread.message"`);
    const parsed = schema.safeParse(record);
    if (!parsed.success) return problems.push(...describe(parsed.error, where));
    const key = `${parsed.data.object}:${parsed.data.id}`;
    if (seen.has(key)) return problems.push(`${where}: ${parsed.data.object} ${parsed.data.id} appears twice`);
    seen.add(key);
    if (parsed.data.object === 'thread') threads.set(parsed.data.id, { thread: parsed.data, messages: [] });
    else messages.push({ message: parsed.data as ExportedMessage, where });
  });
  for (const { message, where } of messages) {
    const entry = threads.get(message.thread_id);
    if (entry) entry.messages.push(message);
    else problems.push(`${where}: thread ${message.thread_id} is not in the export`);
  }
  if (problems.length > 0) return { ok: false, problems };
  const grouped = [...threads.values()];
  // Array.prototype.sort is stable: same-second messages keep the file's order.
  for (const entry of grouped) entry.messages.sort((a, b) => a.created_at - b.created_at);
  return { ok: true, value: { threads: grouped } };
}
