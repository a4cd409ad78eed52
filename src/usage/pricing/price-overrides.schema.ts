import { z } from 'zod';

import type { PriceOverrideValues } from './prices.service';

const rate = z.number().min(0).max(1_000_000);

/** One override, as the admin API and parley.yaml's `prices` take it (docs/usage.md, "Overriding prices"). */
export const priceOverrideSchema = z.strictObject({
  provider: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'Expected a provider name: 1-64 lower-case letters, digits, "-" or "_"'),
  model: z.string().min(1).max(200),
  inputPerMTok: rate,
  outputPerMTok: rate,
  cacheReadPerMTok: rate.nullable().optional(),
  cacheWritePerMTok: rate.nullable().optional(),
});

export const priceOverridesSchema = z
  .array(priceOverrideSchema)
  .max(1000)
  .refine((list) => new Set(list.map((p) => `${p.provider}/${p.model}`)).size === list.length, 'Expected each provider and model once');

export type DeclaredPriceOverride = z.output<typeof priceOverrideSchema>;

/** Rates as the exact decimal text of the number given. */
export function toOverrideValues(list: DeclaredPriceOverride[]): PriceOverrideValues[] {
  const text = (n: number | null | undefined) => (n === null || n === undefined ? null : String(n));
  return list.map((p) => ({
    provider: p.provider,
    model: p.model,
    inputPerMTok: String(p.inputPerMTok),
    outputPerMTok: String(p.outputPerMTok),
    cacheReadPerMTok: text(p.cacheReadPerMTok),
    cacheWritePerMTok: text(p.cacheWritePerMTok),
  }));
}
