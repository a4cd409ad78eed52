import { z } from 'zod';

import { chatMessageSchema, expects } from '../../common/chat';
import { PROVIDER_NAME_PATTERN } from '../../common/validation/slug';
import { modelParametersSchema } from './model-parameters.schema';
import { modelNameSchema, providerNameSchema, responseCacheSchema, routingSchema } from './routing.schema';

export { PROVIDER_NAME_PATTERN };
export { modelParametersSchema };

/**
 * What a version stores, defined once in zod and used by the REST DTOs (via MatchesSchema), the
 * apply file and Swagger. Ranges are the chat-completion API's, as the invoke body checks them.
 */

export const VARIABLE_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;

/** A chat-completion function tool; `parameters` is a JSON Schema object and is not checked further. */
export const toolSchema = z.strictObject({
  type: z.literal('function'),
  function: z.strictObject({
    name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, expects('1-64 letters, digits, "_" or "-"')),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().optional(),
  }),
});

export const toolsSchema = z.array(toolSchema);
export const templateSchema = z.array(chatMessageSchema).min(1, expects('at least one message'));

/** Declared variables and their defaults. Values are text: they are inserted into the template as data. */
export const variableDefaultsSchema = z.record(
  z.string().regex(VARIABLE_NAME_PATTERN, expects('a variable name: a letter or "_", then letters, digits, "_" or "-"')),
  z.string(),
);

/**
 * A prompt's or assistant's content. `provider` and `model` may be left out when there is a
 * `routing` block (they are its first target's); without one, `provider` defaults to `local` and
 * `model` is required. prepareVersionContent fills them in and checks that they agree.
 */
export const versionContentSchema = z.strictObject({
  template: templateSchema,
  provider: providerNameSchema.optional(),
  model: modelNameSchema.optional(),
  parameters: modelParametersSchema.default({}),
  tools: toolsSchema.default([]),
  variables: variableDefaultsSchema.default({}),
  routing: routingSchema.optional(),
  cache: responseCacheSchema.optional(),
});

/** An embedding entry's settings (docs/embeddings.md, "Deployed embedding entries"); OpenAI's range for `dimensions`. */
export const embeddingParametersSchema = z.strictObject({
  dimensions: z.number().int().min(1).max(65_536).optional(),
});

/** What an embedding entry's version stores: no template, tools or variables. */
export const embeddingContentSchema = z.strictObject({
  provider: providerNameSchema.default('local'),
  model: modelNameSchema,
  parameters: embeddingParametersSchema.default({}),
});

/** The version body's `parameters` as the API's pipe checks it: either kind's; the kind's own rules come after. */
export const anyParametersSchema = modelParametersSchema.extend(embeddingParametersSchema.shape);

export type ModelParametersInput = z.input<typeof modelParametersSchema>;
export type ToolDefinition = z.output<typeof toolSchema>;
export type VersionContentInput = z.input<typeof versionContentSchema>;
/** The normalized content of a version: exactly what is stored and hashed. */
export type VersionContent = Omit<z.output<typeof versionContentSchema>, 'parameters' | 'provider' | 'model'> & {
  /** The first routing target's when there is a routing block. */
  provider: string;
  model: string;
  /** A prompt's model parameters, or an embedding entry's `{dimensions}`. */
  parameters: z.output<typeof modelParametersSchema> & z.output<typeof embeddingParametersSchema>;
};
