import { z } from 'zod';
import {
  chatMessageSchema,
  expects,
  namedFunctionChoiceSchema,
  SpecIssue,
  SpecParseResult,
  toSpecIssues,
} from '../../common/chat';

/** Both bounds in one phrase: zod alone would only name the bound that failed ("<= 2"). */
function numberBetween(min: number, max: number) {
  const phrase = expects(`number between ${min} and ${max}`);
  return z.number().min(min, phrase).max(max, phrase);
}

/** The invoke-level tool_choice adds `required` to what a message's tool_choice allows. */
export const invokeToolChoiceSchema = z.union(
  [z.enum(['auto', 'required', 'none']), namedFunctionChoiceSchema],
  expects('"auto", "required", "none" or {type: "function", function: {name}}'),
);

export const responseFormatSchema = z.strictObject({ type: z.literal('json_object') });

/** Spec "Invoke Assistant" body table, minus threadId (Invoke Deployed Prompt has none). */
const promptInvokeShape = {
  variables: z
    .record(z.string(), z.string())
    .optional()
    .describe('Values for the variables the template declares; any other name is rejected'),
  messages: z.array(chatMessageSchema).optional().describe('Messages appended after the template (and thread)'),
  stream: z.boolean().optional(),
  model: z.string().optional().describe('Overrides the deployed model'),
  // Tokens are counted in whole units and zero tokens is no answer: integer >= 1.
  max_tokens: z.number().int().min(1, expects('integer >= 1')).optional(),
  temperature: numberBetween(0, 2).optional(),
  top_p: numberBetween(0, 1).optional(),
  // The chat-completion API's own range for both penalties.
  presence_penalty: numberBetween(-2, 2).optional(),
  frequency_penalty: numberBetween(-2, 2).optional(),
  template: z.array(chatMessageSchema).optional().describe('Replaces the stored template messages'),
  tool_choice: invokeToolChoiceSchema.optional(),
  response_format: responseFormatSchema.optional(),
  user: z.string().optional().describe('Identifier of the end-user'),
  doNotRecord: z.boolean().optional().describe('When true, sensitive data is not recorded in the logs'),
  metadata: z
    .record(z.string(), z.union([z.string(), z.number()], expects('string or number')))
    .optional()
    .describe('Custom data stored with the request log'),
  // `z.number().int()` is a safe integer: a seed outside that range could not round-trip JSON.
  seed: z.number().int().optional(),
};

export const promptInvokeBodySchema = z.strictObject(promptInvokeShape);

export const assistantInvokeBodySchema = z.strictObject({
  threadId: z.string().optional().describe('Thread to continue; a new thread is created when omitted'),
  ...promptInvokeShape,
});

export type InvokeKind = 'prompt' | 'assistant';
export type PromptInvokeBody = z.output<typeof promptInvokeBodySchema>;
export type AssistantInvokeBody = z.output<typeof assistantInvokeBodySchema>;
export type InvokeBodyFor<K extends InvokeKind> = K extends 'prompt' ? PromptInvokeBody : AssistantInvokeBody;
export type InvokeToolChoice = z.output<typeof invokeToolChoiceSchema>;
export type ResponseFormat = z.output<typeof responseFormatSchema>;

export interface InvokeBodyOptions<K extends InvokeKind> {
  kind: K;
  /** Variables the deployed version's template uses or declares defaults for. */
  declaredVariables: readonly string[];
}

export function invokeBodySchemaFor(kind: InvokeKind) {
  return kind === 'prompt' ? promptInvokeBodySchema : assistantInvokeBodySchema;
}

/**
 * Validates an invoke body and reports every problem at once (DESIGN §4.2). A missing body
 * (`undefined`) counts as `{}`, since every field is optional.
 */
export function parseInvokeBody<K extends InvokeKind>(
  body: unknown,
  opts: InvokeBodyOptions<K>,
): SpecParseResult<InvokeBodyFor<K>> {
  const input = body === undefined ? {} : body;
  const result = invokeBodySchemaFor(opts.kind).safeParse(input, { reportInput: true });
  const issues = result.success ? [] : toSpecIssues(result.error);
  const undeclared = undeclaredVariablesIssue(input, opts.declaredVariables);
  if (undeclared) issues.push(undeclared);
  if (!result.success || issues.length > 0) return { ok: false, issues };
  return { ok: true, value: result.data as InvokeBodyFor<K> };
}

/** The spec's own example: unknown variable names are `unrecognized_keys` at `["variables"]`. */
function undeclaredVariablesIssue(input: unknown, declared: readonly string[]): SpecIssue | undefined {
  if (!isPlainObject(input) || !isPlainObject(input.variables)) return undefined;
  const known = new Set(declared);
  const unknown = Object.keys(input.variables).filter((name) => !known.has(name));
  if (unknown.length === 0) return undefined;
  const names = unknown.map((name) => JSON.stringify(name)).join(', ');
  const noun = unknown.length === 1 ? 'key' : 'keys';
  const hint = declared.length
    ? `the template declares ${declared.map((name) => JSON.stringify(name)).join(', ')}`
    : 'the template declares no variables';
  return {
    code: 'unrecognized_keys',
    keys: unknown,
    path: ['variables'],
    message: `Unrecognized ${noun} ${names} at "variables": ${hint}`,
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const jsonSchemaCache = new Map<InvokeKind, Record<string, unknown>>();

/**
 * JSON Schema of the request body for Swagger (`@ApiBody({ schema })`). OpenAPI 3.0 flavour, as
 * @nestjs/swagger emits 3.0 documents; input side, so defaulted fields (image `detail`) are optional.
 * Returns a fresh copy: Swagger's scanner may mutate what it is given.
 */
export function invokeBodyJsonSchema(kind: InvokeKind): Record<string, unknown> {
  let schema = jsonSchemaCache.get(kind);
  if (!schema) {
    schema = z.toJSONSchema(invokeBodySchemaFor(kind), { target: 'openapi-3.0', io: 'input' }) as Record<
      string,
      unknown
    >;
    jsonSchemaCache.set(kind, schema);
  }
  return structuredClone(schema);
}
