import { z } from 'zod';

import { expects } from '../../common/chat';
import { SLUG_PATTERN } from '../../common/validation/slug';

/** A grader's name: how runs, totals, gates and the CLI's `--min-score` refer to it. */
export const graderNameSchema = z
  .string(expects('a grader name'))
  .regex(SLUG_PATTERN, expects('a grader name: 1-64 lower-case letters, digits, "-" or "_", starting with a letter or digit'));

const text = z.string().max(10_000);
const jsonSchemaObject = z.record(z.string(), z.unknown()).refine((schema) => JSON.stringify(schema).length <= 50_000, {
  message: 'Expected a JSON Schema of at most 50,000 characters',
});

/**
 * What each kind of grader checks (docs/evals.md, "Graders"). `expected` is the item's expected
 * output: where a check names no value of its own, it compares with that.
 */
export const graderConfigSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('equals'), value: text.optional(), ignoreCase: z.boolean().default(false) }),
  z.strictObject({
    type: z.literal('contains'),
    values: z.array(text).min(1).max(100).optional(),
    ignoreCase: z.boolean().default(false),
  }),
  z.strictObject({ type: z.literal('regex'), pattern: z.string().min(1).max(1000), ignoreCase: z.boolean().default(false) }),
  z.strictObject({ type: z.literal('json_schema'), schema: jsonSchemaObject }),
  z.strictObject({ type: z.literal('json_path'), path: z.string().min(1).max(1000), value: z.unknown().optional() }),
  z.strictObject({
    type: z.literal('tool_call'),
    name: z.string().min(1).max(64),
    arguments: jsonSchemaObject.optional(),
  }),
  z.strictObject({ type: z.literal('latency'), maxMs: z.number().int().min(1).max(3_600_000) }),
  z.strictObject({ type: z.literal('cost'), maxUsd: z.number().min(0).max(1_000_000) }),
  z.strictObject({
    type: z.literal('model'),
    prompt: z.string().regex(SLUG_PATTERN, expects('the slug of the judge prompt')),
    environment: z.string().regex(SLUG_PATTERN, expects('an environment slug')).default('production'),
    version: z.number().int().min(1).optional(),
    /** A label the judge answers with, and its score; without labels the judge answers with a number. */
    labels: z.record(z.string().min(1).max(100), z.number().min(0).max(1)).optional(),
    /** The judge's number is divided by this (a judge that scores 0-10 names 10). */
    maxScore: z.number().positive().max(1_000_000).default(1),
  }),
]);

export type GraderConfig = z.output<typeof graderConfigSchema>;
export type GraderType = GraderConfig['type'];
export const GRADER_TYPES = ['equals', 'contains', 'regex', 'json_schema', 'json_path', 'tool_call', 'latency', 'cost', 'model'] as const;

/** A grader as a run uses it: its name, its check and the score that passes it. */
export const graderSpecSchema = z.strictObject({
  name: graderNameSchema,
  threshold: z.number().min(0).max(1).optional(),
  config: graderConfigSchema,
});

export interface GraderSpec {
  name: string;
  /** The score that passes: 1 for the deterministic checks (all or nothing), 0.5 for a model grader, unless set. */
  threshold: number;
  config: GraderConfig;
}

export const defaultThreshold = (config: GraderConfig): number => (config.type === 'model' ? 0.5 : 1);

/** What a grader returns for one item. */
export interface GraderScore {
  grader: string;
  score: number;
  passed: boolean;
  reason: string;
}

/** What a graded call produced. */
export interface GradedOutput {
  text: string;
  toolCalls: { name: string; arguments: string }[];
  latencyMs: number;
  costUsd: number | null;
  finishReason: string | null;
}
