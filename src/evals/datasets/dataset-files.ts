import { parse } from 'csv-parse/sync';

import { DatasetItemInput, datasetItemSchema, ITEMS_PER_CALL } from './dataset-item.schema';

/**
 * JSONL and CSV imports (docs/evals.md, "Importing"). JSONL: one item object per line. CSV: a
 * header row; `expected` is the expected output, `messages` a JSON array of chat messages,
 * `metadata.<key>` a metadata field, and every other column a template variable.
 * Every problem is reported with its line, up to 20 of them.
 */
export function parseItemsFile(format: 'jsonl' | 'csv', content: string): { items: DatasetItemInput[]; problems: string[] } {
  const rows = format === 'jsonl' ? jsonlRows(content) : csvRows(content);
  const items: DatasetItemInput[] = [];
  const problems: string[] = [...rows.problems];
  for (const { line, value } of rows.values) {
    if (items.length >= ITEMS_PER_CALL) {
      problems.push(`the file holds more than ${ITEMS_PER_CALL} items: import it in parts`);
      break;
    }
    const parsed = datasetItemSchema.safeParse(value);
    if (parsed.success) items.push(parsed.data);
    else
      for (const issue of parsed.error.issues.slice(0, 3))
        problems.push(`line ${line}: ${[...issue.path].join('.') || 'item'}: ${issue.message}`);
  }
  // By line, whichever check found them (a line that is not JSON, then the shape of the others).
  const lineOf = (problem: string) => Number(/^line (\d+):/.exec(problem)?.[1] ?? 0);
  return { items, problems: problems.sort((a, b) => lineOf(a) - lineOf(b)).slice(0, 20) };
}

interface Rows {
  values: { line: number; value: unknown }[];
  problems: string[];
}

function jsonlRows(content: string): Rows {
  const rows: Rows = { values: [], problems: [] };
  content.split(/\r?\n/).forEach((text, index) => {
    if (text.trim() === '') return;
    try {
      rows.values.push({ line: index + 1, value: JSON.parse(text) });
    } catch {
      rows.problems.push(`line ${index + 1}: not a JSON object`);
    }
  });
  return rows;
}

function csvRows(content: string): Rows {
  let records: { record: Record<string, string>; info: { lines: number } }[];
  try {
    // `info`: where each record ends, so a problem names the record's first line even after a quoted cell spanning lines.
    records = parse(content, {
      columns: true,
      skip_empty_lines: true,
      bom: true,
      relax_column_count: false,
      max_record_size: 1_000_000,
      info: true,
    });
  } catch (err) {
    return { values: [], problems: [`CSV: ${(err as Error).message.slice(0, 200)}`] };
  }
  const rows: Rows = { values: [], problems: [] };
  records.forEach(({ record }, index) => {
    const line = index === 0 ? 2 : records[index - 1].info.lines + 1;
    const item: Record<string, unknown> = { variables: {}, metadata: {} };
    for (const [column, cell] of Object.entries(record)) {
      if (column === 'expected') {
        if (cell !== '') item.expected = cell;
      } else if (column === 'messages') {
        if (cell === '') continue;
        try {
          item.messages = JSON.parse(cell);
        } catch {
          rows.problems.push(`line ${line}: messages: not a JSON array`);
        }
      } else if (column.startsWith('metadata.')) (item.metadata as Record<string, string>)[column.slice('metadata.'.length)] = cell;
      else (item.variables as Record<string, string>)[column] = cell;
    }
    rows.values.push({ line, value: item });
  });
  return rows;
}
