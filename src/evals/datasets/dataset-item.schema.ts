import { z } from 'zod';

import { chatMessageSchema, expects } from '../../common/chat';
import { metadataProblems } from '../../common/validation/metadata';
import { VARIABLE_NAME_PATTERN } from '../../registry/content/version-content.schema';

/** Items added in one call (API, import or the CLI's chunks): a larger file is sent in several calls. */
export const ITEMS_PER_CALL = 1000;

const scalarText = z.union([z.string().max(100_000), z.number(), z.boolean()]).transform(String);

export const itemVariablesSchema = z
  .record(z.string().regex(VARIABLE_NAME_PATTERN, expects('a variable name')), scalarText)
  .refine((value) => Object.keys(value).length <= 100, { message: 'Expected at most 100 variables' });

const metadataSchema = z.record(z.string(), z.union([z.string(), z.number()])).superRefine((value, ctx) => {
  for (const problem of metadataProblems(value, 'metadata')) ctx.addIssue({ code: 'custom', message: problem });
});

/**
 * One dataset item (docs/evals.md, "Datasets"): the template's variables, the messages that follow
 * the template, what the answer should be (text, or any JSON) and free metadata.
 */
export const datasetItemSchema = z.strictObject({
  variables: itemVariablesSchema.default({}),
  messages: z.array(chatMessageSchema).max(100).default([]),
  expected: z.unknown().optional(),
  metadata: metadataSchema.default({}),
});
export type DatasetItemInput = z.output<typeof datasetItemSchema>;

export const itemPatchSchema = z.strictObject({
  variables: itemVariablesSchema.optional(),
  messages: z.array(chatMessageSchema).max(100).optional(),
  expected: z.unknown().optional(),
  metadata: metadataSchema.optional(),
});

export const addItemsSchema = z.strictObject({ items: z.array(datasetItemSchema).min(1).max(ITEMS_PER_CALL) });

export const importItemsSchema = z.strictObject({
  format: z.enum(['jsonl', 'csv']),
  /** The file's text: JSON Lines (one item object per line) or CSV with a header row. */
  content: z.string().min(1).max(10_000_000),
});

/** A request log (`logId`), or a thread turn (`threadId` and the turn's `messageId`). */
export const itemFromSourceSchema = z
  .strictObject({
    logId: z.uuid().optional(),
    threadId: z.uuid().optional(),
    messageId: z.string().min(1).max(64).optional(),
    includeAnswer: z.boolean().default(true),
  })
  .refine(
    (body) =>
      body.logId !== undefined
        ? body.threadId === undefined && body.messageId === undefined
        : body.threadId !== undefined && body.messageId !== undefined,
    { message: 'Expected either logId, or threadId and messageId' },
  );
