import { z } from 'zod';

import { expects } from '../../common/chat';
import { SLUG_PATTERN } from '../../common/validation/slug';
import { versionContentSchema } from '../../registry/content/version-content.schema';
import { graderNameSchema, graderSpecSchema } from '../graders/grader.schema';

const slug = (what: string) => z.string(expects(what)).regex(SLUG_PATTERN, expects(what));

/**
 * What an experiment runs (docs/evals.md, "Experiments"): a saved version, an environment's live
 * version (resolved to its number when the run is created), or an unsaved draft (a version's
 * content: template, provider, model, parameters, tools, variables).
 */
export const runTargetSchema = z.union([
  z.strictObject({ prompt: slug('a prompt slug'), version: z.number().int().min(1) }),
  z.strictObject({ prompt: slug('a prompt slug'), environment: slug('an environment slug') }),
  z.strictObject({ draft: versionContentSchema, prompt: slug('a prompt slug').optional() }),
]);

export const createRunSchema = z.strictObject({
  name: z.string().min(1).max(200).optional(),
  dataset: slug('a dataset name'),
  datasetVersion: z.number().int().min(0).optional(),
  target: runTargetSchema,
  /** Named graders of the project, or graders given inline. */
  graders: z
    .array(z.union([graderNameSchema, graderSpecSchema]))
    .min(1)
    .max(20),
  /** Items called at once (the project's limits and budgets still apply). */
  concurrency: z.number().int().min(1).max(64).default(8),
  metadata: z.record(z.string().max(64), z.union([z.string().max(512), z.number()])).default({}),
});
export type CreateRunBody = z.output<typeof createRunSchema>;

/** A run's target as stored: a version or a draft; an environment target is stored as the version it resolved to. */
export type StoredTarget =
  | { type: 'version'; prompt: string; version: number; environment?: string }
  | { type: 'draft'; prompt: string | null; draft: z.output<typeof versionContentSchema> };
