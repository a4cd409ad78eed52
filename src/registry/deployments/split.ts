import { createHash } from 'node:crypto';

import { z } from 'zod';

import { expects } from '../../common/chat';

/**
 * Weighted splits of versions inside one deployment (docs/experiments.md, "Splits"): the contract
 * `{environment, split: [{version, weight}], stickyBy, rules?}` of POST /v2/prompts/{slug}/deployments.
 */

export const MAX_ARMS = 10;
export const MAX_RULES = 20;
const METADATA_STICKY = /^metadata\.[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

export const versionNumberSchema = z.number().int().min(1).max(2_147_483_647);

/**
 * The arms of a split, each naming its version with `version`: a number in the API; parley.yaml also
 * takes "file" for the file's own content (docs/apply.md), so both validate with the same rules.
 */
export function splitArmsSchema<V extends z.ZodType<number | string>>(version: V) {
  return z
    .array(z.strictObject({ version, weight: z.number().int().min(0).max(10_000) }))
    .min(1, expects('at least one arm'))
    .max(MAX_ARMS, expects(`at most ${MAX_ARMS} arms`))
    .refine((arms) => new Set(arms.map((arm) => (arm as { version: unknown }).version)).size === arms.length, expects('each version once'))
    .refine((arms) => arms.length === 0 || arms.some((arm) => arm.weight > 0), expects('at least one arm with a weight above 0'));
}

/** A split's rules, each naming its version as splitArmsSchema's arms do. */
export function splitRulesSchemaOf<V extends z.ZodType<number | string>>(version: V) {
  return z
    .array(
      z
        .strictObject({
          version,
          user: z.string().min(1).max(256).optional(),
          metadata: z.record(z.string().min(1).max(64), z.string().max(256)).optional(),
        })
        .refine(
          (rule) => rule.user !== undefined || Object.keys(rule.metadata ?? {}).length > 0,
          expects('a `user` or `metadata` to match'),
        ),
    )
    .max(MAX_RULES, expects(`at most ${MAX_RULES} rules`));
}

export const splitSchema = splitArmsSchema(versionNumberSchema);

const STICKY_BY = '"thread", "user", "none" or "metadata.<key>"';
export const stickyBySchema = z.union(
  [z.enum(['thread', 'user', 'none']), z.string().regex(METADATA_STICKY, expects(STICKY_BY))],
  expects(STICKY_BY),
);

export const splitRulesSchema = splitRulesSchemaOf(versionNumberSchema);

export type SplitArm = z.output<typeof splitSchema>[number];
export type StickyBy = 'thread' | 'user' | 'none' | `metadata.${string}`;
export type SplitRule = z.output<typeof splitRulesSchema>[number];

/** A split as stored with its deployment and cached with its resolution. */
export interface DeploymentSplit {
  arms: SplitArm[];
  stickyBy: StickyBy;
  rules: SplitRule[];
}

/** What a call offers to choose by: its thread, its caller-given user and its metadata. */
export interface SplitContext {
  threadId: string | null;
  user: string | undefined;
  metadata: Record<string, string | number>;
}

/** The key a call sticks by, or undefined (a fresh draw per call). */
export function stickyKeyOf(stickyBy: StickyBy, context: SplitContext): string | undefined {
  if (stickyBy === 'thread') return context.threadId ?? undefined;
  if (stickyBy === 'user') return context.user;
  if (stickyBy === 'none') return undefined;
  const value = context.metadata[stickyBy.slice('metadata.'.length)];
  return value === undefined ? undefined : String(value);
}

/**
 * The version that serves a call: the first rule that matches, else the arm whose share of the
 * weights holds the call's point. A sticky key's point is a hash of the deployment and the key, so
 * the same key lands on the same arm on every replica while the weights stay; without a key (or
 * with `none`) the point is drawn at random.
 */
export function chooseVersion(split: DeploymentSplit, deploymentId: string, context: SplitContext, random = Math.random): number {
  for (const rule of split.rules) if (matches(rule, context)) return rule.version;
  const total = split.arms.reduce((sum, arm) => sum + arm.weight, 0);
  const key = stickyKeyOf(split.stickyBy, context);
  const point = (key === undefined ? random() : hashPoint(`${deploymentId}\u0000${key}`)) * total;
  let reached = 0;
  for (const arm of split.arms) {
    reached += arm.weight;
    if (point < reached) return arm.version;
  }
  return split.arms.findLast((arm) => arm.weight > 0)!.version;
}

function matches(rule: SplitRule, context: SplitContext): boolean {
  if (rule.user !== undefined && rule.user !== context.user) return false;
  return Object.entries(rule.metadata ?? {}).every(
    ([key, value]) => context.metadata[key] !== undefined && String(context.metadata[key]) === value,
  );
}

/** A uniform point in [0, 1) from the first 6 bytes of the key's SHA-256. */
export function hashPoint(key: string): number {
  return createHash('sha256').update(key, 'utf8').digest().readUIntBE(0, 6) / 2 ** 48;
}
