// The schema alone (not the client): test/console-playground.spec.ts imports this file without a browser.
import type { components } from '../../api/schema';
import { type ResponseCache, routingBody, type RoutingDraft, routingDraftOf } from './routing-draft';
import { templateVariables } from './template-variables';

type Schemas = components['schemas'];
type Version = Schemas['VersionDto'];
type RequestLogDetail = Schemas['RequestLogDetailDto'];
type ChatMessage = Version['template'][number];

/** What the playground edits: everything a version holds, as the editor shows it. */
export interface Draft {
  /** Every field of each message is kept (tool calls, names, content parts): a card edits role and text, the JSON view the rest. */
  template: ChatMessage[];
  provider: string;
  model: string;
  parameters: string;
  tools: string;
  variableDefaults: string;
  /** With a routing block, `provider` and `model` follow its first target (docs/routing.md). */
  routing: RoutingDraft | null;
  /** Not edited here, but kept: a new version holds the cache its base held. */
  cache: ResponseCache | null;
  note: string;
}

export const EMPTY_DRAFT: Draft = {
  template: [{ role: 'system', content: 'You are a helpful assistant.' }],
  provider: 'local',
  model: 'echo',
  parameters: '{}',
  tools: '[]',
  variableDefaults: '{}',
  routing: null,
  cache: null,
  note: '',
};

export function draftOf(version: Version): Draft {
  return {
    template: version.template.map((m) => ({ ...m })),
    provider: version.provider,
    model: version.model,
    parameters: JSON.stringify(version.parameters, null, 2),
    tools: JSON.stringify(version.tools, null, 2),
    variableDefaults: JSON.stringify(version.variables, null, 2),
    routing: routingDraftOf(version.routing),
    cache: version.cache ?? null,
    note: '',
  };
}

/** A JSON field of the draft, or an Error naming the field. */
export function parseField<T>(text: string, field: string, check: (value: unknown) => boolean): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`${field} is not valid JSON`);
  }
  if (!check(value)) throw new Error(`${field} has the wrong shape`);
  return value as T;
}

const isObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Provider and model, or a routing block with the provider and model of its first target (the API takes them only as those). */
function routed(draft: Draft) {
  if (!draft.routing) return { provider: draft.provider, model: draft.model };
  const routing = routingBody(draft.routing);
  return { provider: routing.targets[0]?.provider ?? draft.provider, model: routing.targets[0]?.model ?? draft.model, routing };
}

/** The body of "save as a new version": nothing the version held is lost (tools, parameters, response format, routing, cache). */
export function versionBody(draft: Draft): Schemas['CreateVersionDto'] & { template: ChatMessage[] } {
  return {
    template: draft.template,
    ...routed(draft),
    ...(draft.cache ? { cache: draft.cache } : {}),
    parameters: parseField<Record<string, unknown>>(draft.parameters, 'Parameters', isObject),
    tools: parseField<NonNullable<Schemas['CreateVersionDto']['tools']>>(draft.tools, 'Tools', Array.isArray),
    variables: parseField<Record<string, string>>(draft.variableDefaults, 'Variable defaults', isObject),
    ...(draft.note.trim() ? { message: draft.note.trim() } : {}),
  };
}

/** The draft as a version's content, unsaved: an experiment's `{draft}` target (everything but the note). */
export function draftContent(draft: Draft) {
  const { message: _message, ...content } = versionBody(draft);
  return {
    ...content,
    provider: content.provider ?? 'local',
    parameters: content.parameters ?? {},
    tools: content.tools ?? [],
    variables: content.variables ?? {},
  };
}

/** The invoke body's fields that override a version's settings one for one (and `response_format` json_object). */
export const RUN_OVERRIDES = [
  'temperature',
  'top_p',
  'max_tokens',
  'presence_penalty',
  'frequency_penalty',
  'seed',
  'tool_choice',
  'response_format',
] as const;

/**
 * An invoke body that runs the draft without saving it over the base version: its template, model
 * and parameters, and its provider and tools when they differ from the base's (a key limited to some
 * environments may not name another provider, so an unchanged one is not sent).
 */
export function runBody(draft: Draft, variables: Record<string, string>, messagesJson: string, base?: Version | null) {
  const parameters = parseField<Record<string, unknown>>(draft.parameters, 'Parameters', isObject);
  const tools = parseField<NonNullable<Schemas['CreateVersionDto']['tools']>>(draft.tools, 'Tools', Array.isArray);
  const changed = {
    ...(draft.provider.trim() !== (base?.provider ?? '') ? { provider: draft.provider.trim() } : {}),
    ...(JSON.stringify(tools) !== JSON.stringify(base?.tools ?? []) ? { tools } : {}),
  };
  const overrides: Record<string, unknown> = {};
  for (const key of RUN_OVERRIDES) if (key !== 'response_format' && parameters[key] !== undefined) overrides[key] = parameters[key];
  const format = parameters.response_format as { type?: string } | undefined;
  if (format?.type === 'json_object') overrides.response_format = format;
  const declared = declaredVariables(draft);
  const defaults = parseField<Record<string, string>>(draft.variableDefaults, 'Variable defaults', isObject);
  return {
    template: draft.template,
    model: draft.model,
    // What each field shows: typed, else the declared default (an emptied default stays empty); an empty field without one is not sent.
    variables: Object.fromEntries(
      declared
        .filter((name) => (variables[name] !== undefined && variables[name] !== '') || defaults[name] !== undefined)
        .map((name) => [name, variables[name] ?? defaults[name]]),
    ),
    messages: parseField<ChatMessage[]>(messagesJson, 'Messages', Array.isArray),
    metadata: { source: 'console-playground' },
    ...overrides,
    ...changed,
  };
}

/**
 * The body of "compare with a saved version": the same input (the messages, and the variables
 * typed in the playground) on the saved version as it is, so none of the draft's settings (template,
 * model, parameters, provider, tools), and of the variables only those the saved version declares
 * (a version refuses any other, `Unrecognized key`): the draft may use variables the saved version
 * does not know. A variable left empty is not sent, so the version's own default applies.
 */
export function savedRunBody(draftBody: ReturnType<typeof runBody>, variables: Record<string, string>, saved: Version) {
  const declared = new Set(saved.declaredVariables);
  return {
    variables: Object.fromEntries(Object.entries(variables).filter(([name, value]) => declared.has(name) && value !== '')),
    messages: draftBody.messages,
    metadata: draftBody.metadata,
  };
}

/** The texts of a template that are templated (docs/templates.md, "What is templated"): string contents, text parts, image URLs. */
export function templatedTexts(messages: readonly ChatMessage[]): string[] {
  return messages.flatMap((message) =>
    typeof message.content === 'string'
      ? [message.content]
      : (message.content ?? []).map((part) => (part.type === 'text' ? part.text : part.image_url.url)),
  );
}

/** The declared defaults, or none while that field is not a JSON object (reported when saving or running). */
export function variableDefaults(draft: Draft): Record<string, string> {
  try {
    const value = JSON.parse(draft.variableDefaults) as unknown;
    return isObject(value) ? (value as Record<string, string>) : {};
  } catch {
    return {};
  }
}

/** The variables the draft declares, sorted: those its template reads (as the person types) and those given a default. */
export function declaredVariables(draft: Draft): string[] {
  return [...new Set([...templateVariables(templatedTexts(draft.template)), ...Object.keys(variableDefaults(draft))])].sort();
}

function parsedJson(text: string | null | undefined): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** "Open in playground" from a log: the variables and the messages the caller sent. */
export function inputFromLog(log: RequestLogDetail): { variables: Record<string, string>; messages: string } {
  const variables = (parsedJson(log.variables) ?? {}) as Record<string, string>;
  const requestData = parsedJson(log.requestData) as { messages?: unknown[] } | null;
  return { variables, messages: JSON.stringify(requestData?.messages ?? [], null, 2) };
}
