import { z } from 'zod';

import { expects } from '../../common/chat';
import { PROVIDER_NAME_PATTERN } from '../../common/validation/slug';
import { canonicalJson } from './content-hash';
import { modelParametersSchema } from './model-parameters.schema';

/**
 * A version's routing block (docs/routing.md): the targets that may serve it, how one is chosen,
 * and which failures move a call on to the next. The field names are a wire contract: clients and
 * `parley.yaml` files use them as they are.
 */

export const ROUTING_STRATEGIES = ['priority', 'weighted', 'least-latency'] as const;
export type RoutingStrategy = (typeof ROUTING_STRATEGIES)[number];

/** What may fall back; the caller's own 4xx never does. Default: all five. */
export const FALLBACK_REASONS = ['rate_limit', 'server_error', 'timeout', 'connection', 'first_token_timeout'] as const;
export type FallbackReason = (typeof FALLBACK_REASONS)[number];

/** More targets than this is a configuration mistake, and bounds a call's attempts. */
export const MAX_ROUTING_TARGETS = 8;

export const providerNameSchema = z.string().regex(PROVIDER_NAME_PATTERN, expects('a provider name ("local" or a provider credential)'));
export const modelNameSchema = z.string().min(1).max(200);

export const routingTargetSchema = z.strictObject({
  provider: providerNameSchema,
  model: modelNameSchema,
  /** `weighted` only: a share relative to the other targets' weights; default 1. */
  weight: z.number().min(0).max(1_000_000).optional(),
  /** Overrides the version's parameters field by field on this target. */
  parameters: modelParametersSchema.optional(),
});

export const routingSchema = z
  .strictObject({
    strategy: z.enum(ROUTING_STRATEGIES).default('priority'),
    targets: z.array(routingTargetSchema).min(1, expects('at least one target')).max(MAX_ROUTING_TARGETS),
    fallbackOn: z
      .array(z.enum(FALLBACK_REASONS))
      .default([...FALLBACK_REASONS])
      .transform((reasons) => FALLBACK_REASONS.filter((reason) => reasons.includes(reason))),
    /** How long a stream may take to its first content event before the next target is tried. */
    firstTokenTimeoutMs: z.number().int().min(100).max(600_000).optional(),
  })
  .superRefine((routing, ctx) => {
    const seen = new Set<string>();
    routing.targets.forEach((target, index) => {
      const key = canonicalJson({ provider: target.provider, model: target.model, parameters: target.parameters ?? {} });
      if (seen.has(key)) ctx.addIssue({ code: 'custom', path: ['targets', index], message: 'repeats an earlier target' });
      seen.add(key);
    });
    // Target 0 is the version's own provider and model: its settings are the version's parameters,
    // which every call uses, routed or not (a call naming its own model is not routed).
    if (routing.targets[0]?.parameters !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['targets', 0, 'parameters'],
        message: "the first target is the version's own provider and model: put its settings in the version's parameters",
      });
    if (routing.strategy === 'weighted' && routing.targets.every((target) => (target.weight ?? 1) === 0)) {
      ctx.addIssue({ code: 'custom', path: ['targets'], message: 'weighted routing needs a target with a weight above 0' });
    }
    if (routing.strategy !== 'weighted') {
      routing.targets.forEach((target, index) => {
        if (target.weight !== undefined)
          ctx.addIssue({ code: 'custom', path: ['targets', index, 'weight'], message: `only the "weighted" strategy uses weights` });
      });
    }
  });

export type RoutingInput = z.input<typeof routingSchema>;
export type Routing = z.output<typeof routingSchema>;
export type RoutingTarget = z.output<typeof routingTargetSchema>;

/**
 * The exact response cache of a version (docs/routing.md, "Response cache"): off unless set.
 * `ttlSeconds` bounds how long a stored answer is served.
 */
export const responseCacheSchema = z.strictObject({
  ttlSeconds: z
    .number()
    .int()
    .min(1)
    .max(30 * 24 * 3600),
});
export type ResponseCacheSettings = z.output<typeof responseCacheSchema>;
