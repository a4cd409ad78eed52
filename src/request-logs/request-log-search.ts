import { filterConditions, LogFilters } from './request-log-filters';

/**
 * How many of the next logs (past the cursor, through the keyset filters) the first query reads
 * before the search turns to the GIN index: then a slice SLICE_GROWTH times as large, then the rest
 * (docs/performance.md, "Full-text search over request logs").
 */
export const SEARCH_WINDOW = 1000;
export const SLICE_GROWTH = 8;

/** The lexeme the search column holds for its project (migration RequestLogSearch1765700000000), as a tsquery. */
export const projectTerm = (projectId: string): string => `'project ${projectId}'`;

/** SQL with `:name` parameters; each statement returns `id`s in page order. */
export interface SearchSql {
  /** The matches among the next SEARCH_WINDOW logs the keyset filters let through: `:take` at most. */
  recent: string;
  /** The id `:offset` logs past `:upper` (past the cursor, or from the start, without it), or none (and none for a query without words). */
  boundary: (from: 'cursor' | 'upper') => string;
  /** The matches among the logs past `:upper` up to and including `:lower` (to the end without it), through GIN: `:rest` at most. */
  slice: (bounded: boolean) => string;
  parameters: Record<string, unknown>;
}

/**
 * A page of search results is newest first (or oldest first) like any page of logs, which a GIN
 * index cannot give in order. So the search reads the logs in page order, in at most three parts,
 * each bounded:
 * - `recent` walks the id order (a keyset index, with the filters such an index answers) through
 *   the next SEARCH_WINDOW logs, and keeps those that match the words and the other filters: a
 *   common word fills the page after a few rows;
 * - only when that window holds fewer matches than the page needs, the next SLICE_GROWTH ×
 *   SEARCH_WINDOW logs (their bound read from the keyset index), then all the rest, are asked of
 *   the GIN index, in this project only (the project's lexeme is in the query: without it, a word
 *   frequent in another project is a bitmap of that project's logs to recheck), and the matches
 *   inside sorted. The words were rare in the logs before, so the matches are few: fewer than a
 *   page in SEARCH_WINDOW logs, then in (SLICE_GROWTH + 1) × SEARCH_WINDOW logs before the rest.
 *   `OFFSET 0` keeps the planner from walking the id order instead, which it would when it
 *   estimates the words common, and which reads every log of the slice when they are not.
 * A query that parses to no words (`numnode` 0) matches nothing: a one-time filter, no scan.
 */
export function searchSql(
  projectId: string,
  filters: LogFilters,
  q: string,
  order: 'asc' | 'desc',
  afterId: string | undefined,
): SearchSql {
  const direction = order === 'desc' ? 'DESC' : 'ASC';
  const [beyond, within] = order === 'desc' ? ['<', '>='] : ['>', '<='];
  const { other, parameters } = filterConditions('l', filters);
  const walked = (a: string, past: string | undefined) =>
    [`${a}.project_id = :projectId`, ...filterConditions(a, filters).keyset, ...(past ? [`${a}.id ${beyond} ${past}`] : [])].join(' AND ');
  const cursor = afterId ? ':afterId' : undefined;
  const words = `websearch_to_tsquery('simple', :q)`;
  const checked = [...filterConditions('w', filters).other, `w.search @@ ${words}`].join(' AND ');
  const recent = `SELECT w.id FROM (
      SELECT l.* FROM request_logs l WHERE ${walked('l', cursor)} ORDER BY l.id ${direction} LIMIT :window
    ) w
    WHERE numnode(${words}) > 0 AND ${checked}
    ORDER BY w.id ${direction} LIMIT :take`;
  const boundary = (from: 'cursor' | 'upper') =>
    `SELECT e.id FROM request_logs e WHERE ${walked('e', from === 'upper' ? ':upper' : cursor)} AND numnode(${words}) > 0
      ORDER BY e.id ${direction} OFFSET :offset LIMIT 1`;
  const slice = (bounded: boolean) => `SELECT hits.id FROM (
      SELECT l.id FROM request_logs l
       WHERE ${[walked('l', ':upper'), ...other].join(' AND ')}${bounded ? ` AND l.id ${within} :lower` : ''}
         AND l.search @@ (${words} && CAST(:projectTerm AS tsquery)) AND numnode(${words}) > 0
      OFFSET 0
    ) hits
    ORDER BY hits.id ${direction} LIMIT :rest`;
  return {
    recent,
    boundary,
    slice,
    parameters: {
      ...parameters,
      projectId,
      afterId,
      q,
      projectTerm: projectTerm(projectId),
      window: SEARCH_WINDOW,
    },
  };
}
