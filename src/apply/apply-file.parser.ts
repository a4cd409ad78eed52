import { LineCounter, Node, parseDocument } from 'yaml';
import { z } from 'zod';
import { issueMessage, PreparedVersion, prepareVersionContent } from '../registry/content/version-content';
import { ApplyFileTop, applyFileSchema, DeclaredPrompt, promptSchema } from './apply-file.schema';
import { describeYamlError } from './yaml-errors';

export type IssuePath = (string | number)[];

/** A validated parley.yaml: its top level, and each prompt with its content prepared (compiled, hashed). */
export interface ApplyFile extends Omit<ApplyFileTop, 'prompts'> {
  prompts: { declared: DeclaredPrompt; prepared: PreparedVersion }[];
  /** Writes a problem found later (against the database) the way parsing writes its own. */
  describe: (path: IssuePath, message: string) => string;
}

export type ApplyFileResult = { ok: true; file: ApplyFile } | { ok: false; issues: string[] };

/** Finds the YAML line of a path (or of its nearest existing parent); absent for JSON input. */
type Locate = (path: IssuePath) => number | undefined;

/** `prompts[0].template[1].content`: how a path into the file is written in messages. */
export function formatPath(path: IssuePath): string {
  return path.reduce<string>((text, part) => (typeof part === 'number' ? `${text}[${part}]` : text ? `${text}.${part}` : part), '');
}

function describe(path: IssuePath, message: string, locate?: Locate): string {
  const line = locate?.(path);
  const where = formatPath(path) || '(file)';
  return `${where}${line === undefined ? '' : ` (line ${line})`}: ${message}`;
}

function zodIssues(error: z.ZodError, prefix: IssuePath, locate?: Locate): string[] {
  return error.issues.map((issue) => describe([...prefix, ...(issue.path as IssuePath)], issueMessage(issue), locate));
}

/**
 * Validates a parsed document (from YAML, or a JSON body) completely before anything is applied:
 * every problem is reported, each with its path in the file (and line, when `locate` knows it).
 */
export function validateApplyDocument(document: unknown, locate?: Locate): ApplyFileResult {
  if (document === null || document === undefined) return { ok: false, issues: ['(file): the file is empty; expected workspace, project and prompts'] };
  const top = applyFileSchema.safeParse(document, { reportInput: true });
  const issues = top.success ? [] : zodIssues(top.error, [], locate);
  const rawPrompts = Array.isArray((document as { prompts?: unknown }).prompts) ? ((document as { prompts: unknown[] }).prompts) : [];
  const prompts: ApplyFile['prompts'] = [];
  rawPrompts.forEach((raw, index) => {
    const parsed = promptSchema.safeParse(raw, { reportInput: true });
    if (!parsed.success) return issues.push(...zodIssues(parsed.error, ['prompts', index], locate));
    const { template, provider, model, parameters, tools, variables } = parsed.data;
    const prepared = prepareVersionContent({ template, provider, model, parameters, tools, variables });
    if (!prepared.ok) return issues.push(...prepared.issues.map((issue) => describe(['prompts', index, ...issue.path], issue.message, locate)));
    prompts.push({ declared: parsed.data, prepared: prepared.value });
  });
  if (top.success) issues.push(...duplicates(top.data, locate));
  if (!top.success || issues.length > 0) return { ok: false, issues };
  return { ok: true, file: { ...top.data, prompts, describe: (path, message) => describe(path, message, locate) } };
}

/** Names that must be unique within the file (prompts as written, so indices are the file's). */
function duplicates(top: ApplyFileTop, locate?: Locate): string[] {
  const found: string[] = [];
  const check = (entries: { value: unknown; path: IssuePath }[], what: string) => {
    const seen = new Map<string, IssuePath>();
    for (const { value, path } of entries) {
      if (typeof value !== 'string') continue;
      const first = seen.get(value);
      if (first) found.push(describe(path, `${what} "${value}" is already listed at ${formatPath(first)}`, locate));
      else seen.set(value, path);
    }
  };
  const raw = top.prompts as { slug?: unknown; deploy?: unknown }[];
  check(top.environments.map((value, i) => ({ value, path: ['environments', i] })), 'environment');
  check(top.providers.map((p, i) => ({ value: p.name, path: ['providers', i, 'name'] })), 'provider');
  check(raw.map((p, i) => ({ value: p?.slug, path: ['prompts', i, 'slug'] })), 'slug');
  raw.forEach((p, i) => {
    if (Array.isArray(p?.deploy)) check(p.deploy.map((value, j) => ({ value, path: ['prompts', i, 'deploy', j] })), 'environment');
  });
  return found;
}

/** Parses parley.yaml text: YAML errors in plain words at their line, then validateApplyDocument with line numbers. */
export function parseApplyText(text: string): ApplyFileResult {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true, logLevel: 'error' });
  if (doc.errors.length > 0) {
    // One mistake often trips several parser errors at one place: each place is reported once.
    const issues = [...new Set(doc.errors.map((e) => `(file) ${describeYamlError(e, text, lineCounter)}`))];
    return { ok: false, issues };
  }
  const locate: Locate = (path) => {
    for (let length = path.length; length >= 0; length--) {
      // keepScalar: even a plain value comes back as a node, which knows where it starts.
      const node = (length === 0 ? doc.contents : doc.getIn(path.slice(0, length), true)) as Node | null | undefined;
      const offset = node?.range?.[0];
      if (offset !== undefined) return lineCounter.linePos(offset).line;
    }
    return undefined;
  };
  return validateApplyDocument(doc.toJS({ maxAliasCount: 100 }), locate);
}
