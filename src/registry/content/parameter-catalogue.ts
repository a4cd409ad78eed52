import { z } from 'zod';

import {
  ANTHROPIC_DEFAULT_MAX_TOKENS,
  LOCAL_MODELS,
  PROVIDER_TYPES,
  type ProviderRequest,
  type ProviderType,
  sendsParameter,
} from '../../providers';
import { modelParametersSchema } from './model-parameters.schema';

type ParameterName = keyof z.input<typeof modelParametersSchema>;

/** How a console offers a parameter: a number field (a slider when both bounds are known), one of some values, a list of texts, or JSON. */
export type ParameterControl = 'number' | 'integer' | 'choice' | 'text-list' | 'json';

/** One model parameter a version stores, as a provider type takes it (GET /v2/providers/parameters). */
export interface ParameterDescription {
  name: ParameterName;
  description: string;
  control: ParameterControl;
  /** The schema's bounds; null where it has none (a safe-integer bound is none). */
  minimum: number | null;
  maximum: number | null;
  /** `text-list`: how many texts at most. */
  maxItems: number | null;
  /** `choice`: the values this provider type sends, as they are stored ("auto", {"type": "text"}). */
  choices: unknown[] | null;
  /** `choice`: the parameter also takes values that are not listed (tool_choice naming a function), written as JSON. */
  otherValues: boolean;
  /** What the provider uses when the parameter is not set, when known; null otherwise. */
  default: unknown;
  /** Whether a provider of this type sends it upstream; false: stored, but left out of its calls. */
  sent: boolean;
}

export interface ProviderTypeParameters {
  type: ProviderType;
  /** The chat models a provider of this type is known to have; null when its upstream decides. */
  models: string[] | null;
  parameters: ParameterDescription[];
}

/** For a person choosing a value; every parameter of the schema needs one (the type says so). */
const DESCRIPTIONS: Record<ParameterName, string> = {
  max_tokens: 'the longest answer, in tokens',
  temperature: 'how varied the answer is: lower is more predictable',
  top_p: 'samples only from the most likely tokens whose probabilities add up to this',
  presence_penalty: 'above 0, the model prefers tokens it has not used yet (new topics)',
  frequency_penalty: 'above 0, the model repeats itself less',
  seed: 'the same seed and input give the same answer, as far as the provider can',
  stop: 'the answer ends before any of these texts',
  response_format: 'json_object asks for an answer that is a JSON object',
  tool_choice: 'whether the model may, must or must not call a tool',
};

/** The chat-completion API's own values for what a request leaves out. */
const CHAT_COMPLETION_DEFAULTS: Partial<Record<ParameterName, unknown>> = {
  temperature: 1,
  top_p: 1,
  presence_penalty: 0,
  frequency_penalty: 0,
  response_format: { type: 'text' },
};

function defaultFor(type: ProviderType, name: ParameterName): unknown {
  // The local provider samples nothing: its answers are the same whatever the parameters.
  if (type === 'local') return null;
  if (type === 'anthropic' && name === 'max_tokens') return ANTHROPIC_DEFAULT_MAX_TOKENS;
  return CHAT_COMPLETION_DEFAULTS[name] ?? null;
}

interface JsonSchema {
  type?: string;
  minimum?: number;
  maximum?: number;
  maxItems?: number;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
}

const bound = (value: number | undefined) => (value === undefined || Math.abs(value) >= Number.MAX_SAFE_INTEGER ? null : value);

/** A finite set of values: an enum, or an object whose only property is an enum (`{"type": "json_object"}`). */
function choicesOf(schema: JsonSchema): unknown[] | null {
  if (schema.enum) return schema.enum;
  const keys = Object.keys(schema.properties ?? {});
  const only = keys.length === 1 ? schema.properties![keys[0]] : undefined;
  return schema.type === 'object' && only?.enum ? only.enum.map((value) => ({ [keys[0]]: value })) : null;
}

type Shape = Pick<ParameterDescription, 'control' | 'minimum' | 'maximum' | 'maxItems' | 'choices' | 'otherValues'>;

/** How the schema of one parameter is offered. */
export function shapeOf(schema: JsonSchema): Shape {
  const none = { minimum: null, maximum: null, maxItems: null, choices: null, otherValues: false };
  if (schema.type === 'number' || schema.type === 'integer')
    return { ...none, control: schema.type, minimum: bound(schema.minimum), maximum: bound(schema.maximum) };
  const choices = choicesOf(schema);
  if (choices) return { ...none, control: 'choice', choices };
  const options = schema.anyOf ?? [];
  if (options.length > 0 && options.every((o) => o.type === 'string' || (o.type === 'array' && o.items?.type === 'string')))
    return { ...none, control: 'text-list', maxItems: options.find((o) => o.type === 'array')?.maxItems ?? null };
  const listed = options.map(choicesOf);
  if (listed.some((values) => values !== null))
    return { ...none, control: 'choice', choices: listed.flatMap((values) => values ?? []), otherValues: listed.includes(null) };
  return { ...none, control: 'json' };
}

/** A value to ask the adapter about when the parameter has no list of values. */
function probeValue(shape: Shape, fallback: unknown): unknown {
  if (shape.control === 'text-list') return 'END';
  return fallback ?? shape.minimum ?? 1;
}

/**
 * Every model parameter a version may store (model-parameters.schema.ts, read through its JSON
 * Schema), for each provider type: its bounds or values, the provider's default, and whether that
 * type's adapter sends it (providers/routing-targets.ts, `sendsParameter`). A parameter added to the
 * schema is listed here without more code (its description aside, which the type asks for).
 */
export function parameterCatalogue(): ProviderTypeParameters[] {
  return (catalogue ??= buildCatalogue());
}
let catalogue: ProviderTypeParameters[] | undefined;

function buildCatalogue(): ProviderTypeParameters[] {
  const schema = z.toJSONSchema(modelParametersSchema, { io: 'input' }) as { properties: Record<string, JsonSchema> };
  const shapes = Object.entries(schema.properties).map(([name, property]) => [name as ParameterName, shapeOf(property)] as const);
  return PROVIDER_TYPES.map((type) => ({
    type,
    models: type === 'local' ? [...LOCAL_MODELS] : null,
    parameters: shapes.map(([name, shape]) => {
      const field = name as keyof ProviderRequest;
      const choices = shape.choices?.filter((value) => sendsParameter(type, field, value)) ?? null;
      const fallback = defaultFor(type, name);
      const sent = choices ? choices.length > 0 : shape.control === 'json' || sendsParameter(type, field, probeValue(shape, fallback));
      return { name, description: DESCRIPTIONS[name], ...shape, choices, default: fallback, sent };
    }),
  }));
}
