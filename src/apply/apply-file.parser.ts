import { LineCounter, Node, parseDocument } from 'yaml';
import { z } from 'zod';

import { checkProblem } from '../evals/graders/checks';
import { graderSpecSchema } from '../evals/graders/grader.schema';
import { providerNameSchema } from '../registry/content/routing.schema';
import { issueMessage, PreparedVersion, prepareVersionContent } from '../registry/content/version-content';
import { DEFAULT_ENVIRONMENTS } from '../registry/environments/environments.service';
import {
  applyFileSchema,
  ApplyFileTop,
  DeclaredPrompt,
  gateEntrySchema,
  promptSchema,
  providerSchema,
  slugSchema,
} from './apply-file.schema';
import { deployEnvironmentOf, DeployReference, deployReferences } from './apply-splits';
import { describeYamlError } from './yaml-errors';

export type IssuePath = (string | number)[];

/**
 * What a file refers to that only the database can confirm (the project's environments, providers
 * and existing prompts), taken from whichever parts of the file are valid. A file with other
 * mistakes still has its references checked, so every problem comes in one report.
 */
export interface ApplyReferences {
  workspace: string;
  project: string;
  /** The file's own environments (the defaults when it lists none). */
  environments: string[];
  /** Every provider name the file declares, valid entry or not: a broken entry is reported on its own, not again as missing. */
  providerNames: string[];
  /** The valid provider entries, with their index in the file. */
  providers: { index: number; type: string; baseUrl?: string; apiKeyEnv?: string }[];
  /** What each prompt refers to, from its valid fields (an invalid prompt's other fields are still checked). */
  prompts: PromptReferences[];
  /** Every dataset name the file declares, valid entry or not (as providerNames). */
  datasetNames: string[];
  /** What each gate refers to, from its valid fields. */
  gates: { index: number; environment?: string; dataset?: string }[];
  /** Writes a problem found later (against the database) the way parsing writes its own. */
  describe: (path: IssuePath, message: string) => string;
}

export interface PromptReferences {
  index: number;
  slug?: string;
  kind?: DeclaredPrompt['kind'];
  provider?: string;
  /** Each routing target's provider, by the target's index (undefined where it is not a provider name). */
  targetProviders: (string | undefined)[];
  /** Each `deploy` entry's environment and, for a split, the version numbers it names. */
  deploy: DeployReference[];
}

/** A prompt entry's references, field by field, whether or not the entry as a whole is valid. */
function promptReferences(raw: unknown, index: number): PromptReferences {
  const entry = (raw !== null && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const field = <K extends 'slug' | 'kind' | 'provider'>(key: K) => {
    const parsed = promptSchema.shape[key].safeParse(entry[key]);
    return parsed.success ? (parsed.data as DeclaredPrompt[K]) : undefined;
  };
  const targets = (entry.routing as { targets?: unknown } | null | undefined)?.targets;
  const targetProviders = (Array.isArray(targets) ? targets : []).map((target) => {
    const name = (target as { provider?: unknown } | null)?.provider;
    return providerNameSchema.safeParse(name).data;
  });
  return {
    index,
    slug: field('slug'),
    kind: field('kind'),
    provider: field('provider'),
    targetProviders,
    deploy: deployReferences(entry.deploy),
  };
}

/** A validated parley.yaml: its top level, and each prompt with its content prepared (compiled, hashed). */
export interface ApplyFile extends Omit<ApplyFileTop, 'prompts'> {
  prompts: { declared: DeclaredPrompt; prepared: PreparedVersion }[];
  references: ApplyReferences;
}

/** `references` is absent when the file does not name a valid workspace and project: there is nothing to check them against. */
export type ApplyFileResult = { ok: true; file: ApplyFile } | { ok: false; issues: string[]; references?: ApplyReferences };

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
  if (document === null || document === undefined)
    return { ok: false, issues: ['(file): the file is empty; expected workspace, project and prompts'] };
  const top = applyFileSchema.safeParse(document, { reportInput: true });
  const issues = top.success ? [] : zodIssues(top.error, [], locate);
  const rawPrompts = Array.isArray((document as { prompts?: unknown }).prompts) ? (document as { prompts: unknown[] }).prompts : [];
  const prompts: ApplyFile['prompts'] = [];
  rawPrompts.forEach((raw, index) => {
    const parsed = promptSchema.safeParse(raw, { reportInput: true });
    if (!parsed.success) return issues.push(...zodIssues(parsed.error, ['prompts', index], locate));
    const { kind, template, provider, model, parameters, tools, variables, routing, cache } = parsed.data;
    const prepared = prepareVersionContent({ template, provider, model, parameters, tools, variables, routing, cache }, kind);
    if (!prepared.ok)
      return issues.push(...prepared.issues.map((issue) => describe(['prompts', index, ...issue.path], issue.message, locate)));
    prompts.push({ declared: parsed.data, prepared: prepared.value });
  });
  issues.push(...graderCheckIssues(document, locate));
  if (top.success) issues.push(...duplicates(top.data, locate));
  const references = referencesOf(document, rawPrompts.map(promptReferences), (path, message) => describe(path, message, locate));
  if (!top.success || issues.length > 0) return { ok: false, issues, references };
  return { ok: true, file: { ...top.data, prompts, references: references! } };
}

/** The references of a document whose top level may be invalid: see ApplyReferences. */
function referencesOf(
  document: unknown,
  prompts: ApplyReferences['prompts'],
  describe: ApplyReferences['describe'],
): ApplyReferences | undefined {
  const raw = document as Record<string, unknown>;
  const workspace = slugSchema.safeParse(raw.workspace);
  const project = slugSchema.safeParse(raw.project);
  if (!workspace.success || !project.success) return undefined;
  const list = (key: string) => (Array.isArray(raw[key]) ? (raw[key] as unknown[]) : []);
  const rawProviders = list('providers');
  const providers: ApplyReferences['providers'] = [];
  rawProviders.forEach((entry, index) => {
    const parsed = providerSchema.safeParse(entry);
    if (parsed.success) providers.push({ index, type: parsed.data.type, baseUrl: parsed.data.baseUrl, apiKeyEnv: parsed.data.apiKeyEnv });
  });
  return {
    workspace: workspace.data,
    project: project.data,
    environments: Array.isArray(raw.environments)
      ? raw.environments.filter((e): e is string => typeof e === 'string')
      : [...DEFAULT_ENVIRONMENTS],
    providerNames: rawProviders
      .map((p) => (p as { name?: unknown } | null)?.name)
      .filter((name): name is string => typeof name === 'string'),
    providers,
    prompts,
    datasetNames: list('datasets')
      .map((d) => (d as { name?: unknown } | null)?.name)
      .filter((name): name is string => typeof name === 'string'),
    gates: list('gates').map((entry, index) => {
      const gate = (entry !== null && typeof entry === 'object' ? entry : {}) as Record<string, unknown>;
      const environment = gateEntrySchema.shape.environment.safeParse(gate.environment);
      const dataset = gateEntrySchema.shape.dataset.safeParse(gate.dataset);
      return { index, environment: environment.data, dataset: dataset.data };
    }),
    describe,
  };
}

/** A valid grader's check that cannot be compiled (a pattern RE2 refuses, a JSON Schema Ajv cannot compile), as PUT /v2/graders says. */
function graderCheckIssues(document: unknown, locate?: Locate): string[] {
  const graders = (document as { graders?: unknown }).graders;
  return (Array.isArray(graders) ? graders : []).flatMap((raw, index) => {
    const parsed = graderSpecSchema.safeParse(raw);
    const problem = parsed.success && parsed.data.config.type !== 'model' ? checkProblem(parsed.data.config) : null;
    return problem ? [describe(['graders', index, 'config'], problem, locate)] : [];
  });
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
  check(
    top.environments.map((value, i) => ({ value, path: ['environments', i] })),
    'environment',
  );
  check(
    top.providers.map((p, i) => ({ value: p.name, path: ['providers', i, 'name'] })),
    'provider',
  );
  check(
    raw.map((p, i) => ({ value: p?.slug, path: ['prompts', i, 'slug'] })),
    'slug',
  );
  check(
    top.graders.map((g, i) => ({ value: g.name, path: ['graders', i, 'name'] })),
    'grader',
  );
  check(
    top.datasets.map((d, i) => ({ value: d.name, path: ['datasets', i, 'name'] })),
    'dataset',
  );
  check(
    top.gates.map((g, i) => ({ value: g.environment, path: ['gates', i, 'environment'] })),
    'gate of environment',
  );
  raw.forEach((p, i) => {
    if (Array.isArray(p?.deploy))
      check(
        p.deploy.map((entry, j) => {
          const { value, path } = deployEnvironmentOf(entry, j);
          return { value, path: ['prompts', i, ...path] };
        }),
        'environment',
      );
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
  let document: unknown;
  try {
    document = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    // Resolving aliases can still fail after a clean parse: an alias whose anchor is not set
    // before it, or more alias expansions than allowed. The file is wrong, not the server.
    return { ok: false, issues: [`(file) ${(err as Error).message}`] };
  }
  return validateApplyDocument(document, locate);
}
