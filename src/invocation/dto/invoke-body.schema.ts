import { z } from 'zod';

import {
  chatMessageSchema,
  expects,
  MODEL_NAME_MAX_LENGTH,
  samplingSettingsShape,
  SpecIssue,
  SpecParseResult,
  toolChoiceSchema,
  toSpecIssues,
} from '../../common/chat';
import { isPlainObject } from '../../common/errors/request-body';
import { openApiSchemaOf } from '../../common/swagger/zod-schema';
import { METADATA_MAX_KEY_LENGTH, METADATA_MAX_KEYS, METADATA_MAX_STRING_LENGTH, metadataProblems } from '../../common/validation/metadata';
import { toolsSchema } from '../../registry/content/version-content.schema';

const responseFormatSchema = z.strictObject({ type: z.literal('json_object') });

/** Spec "Invoke Assistant" body table, minus threadId (Invoke Deployed Prompt has none). */
const promptInvokeShape = {
  variables: z
    .record(z.string(), z.string())
    .optional()
    .describe('Values for the variables the template declares; any other name is rejected'),
  messages: z.array(chatMessageSchema).optional().describe('Messages appended after the template (and thread)'),
  stream: z.boolean().optional(),
  // Bounded by the log column it is recorded in: a longer name would fail the log insert after the provider call.
  model: z
    .string()
    .max(MODEL_NAME_MAX_LENGTH, expects(`model name of at most ${MODEL_NAME_MAX_LENGTH} characters`))
    .optional()
    .describe('Overrides the deployed model'),
  ...samplingSettingsShape,
  template: z.array(chatMessageSchema).optional().describe('Replaces the stored template messages'),
  provider: z
    .string()
    .max(MODEL_NAME_MAX_LENGTH, expects(`provider name of at most ${MODEL_NAME_MAX_LENGTH} characters`))
    .optional()
    .describe("Overrides the version's provider: `local` or a provider of the project (not for a key limited to some environments)"),
  tools: toolsSchema.optional().describe("Replaces the version's tools (an empty list: none)"),
  tool_choice: toolChoiceSchema.optional(),
  response_format: responseFormatSchema.optional(),
  user: z.string().optional().describe('Identifier of the end-user'),
  doNotRecord: z.boolean().optional().describe('When true, sensitive data is not recorded in the logs'),
  // Thread metadata's bounds (docs/security.md "Bounded inputs"), reported with the body's other issues.
  metadata: z
    .record(z.string(), z.union([z.string(), z.number()], expects('string or number')))
    .superRefine((value, ctx) => {
      for (const message of metadataProblems(value, 'metadata')) ctx.addIssue({ code: 'custom', message });
    })
    .optional()
    .describe(
      `Custom data stored with the request log: at most ${METADATA_MAX_KEYS} keys of 1 to ${METADATA_MAX_KEY_LENGTH} characters, strings of at most ${METADATA_MAX_STRING_LENGTH} characters or numbers`,
    ),
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
export function parseInvokeBody<K extends InvokeKind>(body: unknown, opts: InvokeBodyOptions<K>): SpecParseResult<InvokeBodyFor<K>> {
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

/**
 * JSON Schema of the request body for Swagger (`@ApiBody({ schema })`), input side, so defaulted
 * fields (image `detail`) are optional. A fresh object per call: Swagger's scanner may mutate it.
 */
export function invokeBodyJsonSchema(kind: InvokeKind): Record<string, unknown> {
  return openApiSchemaOf(invokeBodySchemaFor(kind));
}
