import { z } from 'zod';

import { ChatMessage } from '../../common/chat';
import { CompiledTemplate, compileTemplate, TemplateCompileError } from '../../templates';
import type { PromptKind } from '../resolved-deployment';
import { contentHash } from './content-hash';
import { embeddingContentSchema, VersionContent, versionContentSchema } from './version-content.schema';

/** One problem with a version's content; `path` is relative to the content object. */
export interface ContentIssue {
  path: (string | number)[];
  message: string;
}

export interface PreparedVersion {
  content: VersionContent;
  contentHash: string;
  /** Variables the template reads plus those declared with a default, sorted. */
  declaredVariables: string[];
  compiled: CompiledTemplate<ChatMessage>;
}

export type PrepareResult = { ok: true; value: PreparedVersion } | { ok: false; issues: ContentIssue[] };

/** Where a compile error is, as a path into the content: template.1.content or template.1.content.0.text. */
function compileIssue(error: TemplateCompileError, template: ChatMessage[]): ContentIssue {
  const path: (string | number)[] = ['template', error.messageIndex, 'content'];
  if (error.partIndex !== null) {
    const part = (template[error.messageIndex].content as { type: string }[])[error.partIndex];
    path.push(error.partIndex, ...(part.type === 'image_url' ? ['image_url', 'url'] : ['text']));
  }
  return { path, message: `template does not compile: ${error.detail}` };
}

/**
 * Validates and normalizes a version's content, compiles its template (so a template that does not
 * compile is refused before anything is stored) and computes its hash. Reports every problem found.
 * Which providers exist is not known here: callers check `content.provider` against the project.
 * An embedding entry's content is its provider, model and dimensions (prepareEmbeddingContent).
 */
export function prepareVersionContent(input: unknown, kind: PromptKind = 'prompt'): PrepareResult {
  if (kind === 'embedding') return prepareEmbeddingContent(input);
  const parsed = versionContentSchema.safeParse(input, { reportInput: true });
  if (!parsed.success) {
    // withProviderAndModel's own check, so that one answer names every problem.
    const given = (input ?? {}) as Record<string, unknown>;
    const missingModel = typeof input === 'object' && given.model === undefined && given.routing === undefined;
    return { ok: false, issues: [...zodIssues(parsed.error), ...(missingModel ? [{ path: ['model'], message: 'Required' }] : [])] };
  }
  const issues: ContentIssue[] = [];
  const content = withProviderAndModel(parsed.data, issues);
  const choice = content.parameters.tool_choice;
  if (typeof choice === 'object' && !content.tools.some((tool) => tool.function.name === choice.function.name)) {
    issues.push({ path: ['parameters', 'tool_choice'], message: `names function "${choice.function.name}", which is not among the tools` });
  }
  if (choice === 'required' && content.tools.length === 0) {
    issues.push({ path: ['parameters', 'tool_choice'], message: '"required" needs at least one tool' });
  }
  let compiled: CompiledTemplate<ChatMessage> | undefined;
  try {
    compiled = compileTemplate(content.template);
  } catch (error) {
    if (!(error instanceof TemplateCompileError)) throw error;
    issues.push(compileIssue(error, content.template));
  }
  if (issues.length > 0 || !compiled) return { ok: false, issues };
  const declaredVariables = [...new Set([...compiled.variables, ...Object.keys(content.variables)])].sort();
  return { ok: true, value: { content, contentHash: contentHash(content), declaredVariables, compiled } };
}

/**
 * `provider` and `model` as stored: the first routing target's when there is a routing block (and
 * when given as well, they must be its), else `local` and the model given, which is then required.
 */
function withProviderAndModel(parsed: z.output<typeof versionContentSchema>, issues: ContentIssue[]): VersionContent {
  const first = parsed.routing?.targets[0];
  if (first) {
    if (parsed.provider !== undefined && parsed.provider !== first.provider)
      issues.push({ path: ['provider'], message: `must be the first routing target's ("${first.provider}") or left out` });
    if (parsed.model !== undefined && parsed.model !== first.model)
      issues.push({ path: ['model'], message: `must be the first routing target's ("${first.model}") or left out` });
    return { ...parsed, provider: first.provider, model: first.model };
  }
  if (parsed.model === undefined) issues.push({ path: ['model'], message: 'Required' });
  return { ...parsed, provider: parsed.provider ?? 'local', model: parsed.model ?? '' };
}

const CHAT_ONLY_FIELDS = ['template', 'tools', 'variables', 'routing', 'cache'] as const;

/**
 * An embedding entry: stored with an empty template, no tools and no variables, so that it is a
 * version like any other (diffed, deployed, rolled back); the hash covers what it stores.
 */
function prepareEmbeddingContent(input: unknown): PrepareResult {
  const given = (input !== null && typeof input === 'object' ? input : {}) as Record<string, unknown>;
  const chatFields = CHAT_ONLY_FIELDS.filter((field) => given[field] !== undefined);
  const rest = Object.fromEntries(Object.entries(given).filter(([field]) => !(CHAT_ONLY_FIELDS as readonly string[]).includes(field)));
  const parsed = embeddingContentSchema.safeParse(rest, { reportInput: true });
  const issues = [
    ...chatFields.map((field) => ({ path: [field], message: `an embedding entry has no ${field}` })),
    ...(parsed.success ? [] : zodIssues(parsed.error)),
  ];
  if (!parsed.success || issues.length > 0) return { ok: false, issues };
  const content: VersionContent = { ...parsed.data, template: [], tools: [], variables: {} };
  return { ok: true, value: { content, contentHash: contentHash(content), declaredVariables: [], compiled: compileTemplate([]) } };
}

export function zodIssues(error: z.ZodError): ContentIssue[] {
  return error.issues.map((issue) => ({
    path: issue.path.map((p) => (typeof p === 'number' ? p : String(p))),
    message: issueMessage(issue),
  }));
}

/** zod's message, except that a missing field says so (parse with `reportInput: true`). */
export function issueMessage(issue: z.core.$ZodIssue): string {
  return issue.code === 'invalid_type' && 'input' in issue && issue.input === undefined ? 'Required' : issue.message;
}

/** `template.1.content: message`: the form REST error details use. */
export function formatIssue(issue: ContentIssue, prefix: (string | number)[] = []): string {
  const path = [...prefix, ...issue.path].join('.');
  return path ? `${path}: ${issue.message}` : issue.message;
}
