/**
 * The maintained price table: @pydantic/genai-prices, whose data ships inside the package (it is
 * never fetched at run time: its auto-update is not enabled). docs/usage.md, "Where prices come from".
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

import { calcPrice, ModelPrice, TieredPrices } from '@pydantic/genai-prices';

import type { ProviderType } from '../../providers';
import type { Price, Rate } from './price';

/** Parley's provider types as the table names its providers. */
const TABLE_PROVIDER: Partial<Record<ProviderType, string>> = { openai: 'openai', anthropic: 'anthropic' };
/** The built-in local provider is Parley itself: it costs nothing. */
const LOCAL_PRICE: Price = { input: 0, output: 0, ref: 'local: no charge' };
const MAX_CACHED = 2000;

export const PRICE_TABLE_VERSION = (() => {
  try {
    const file = path.join(path.dirname(require.resolve('@pydantic/genai-prices')), '..', 'package.json');
    return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
})();

function rateOf(value: ModelPrice[string]): Rate | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number') return value;
  const tiered = value as TieredPrices;
  return { base: tiered.base, tiers: tiered.tiers.map((t) => ({ start: t.start, price: t.price })) };
}

/**
 * The table's price of a model as called through a provider of this type (and base URL, which
 * tells e.g. OpenRouter or Groq apart from OpenAI); null when the table has none.
 */
export class PriceTable {
  private readonly cache = new Map<string, Price | null>();

  priceOf(type: ProviderType, baseUrl: string | undefined, model: string): Price | null {
    if (type === 'local') return LOCAL_PRICE;
    const key = `${type}\u0000${baseUrl ?? ''}\u0000${model}`;
    if (this.cache.has(key)) return this.cache.get(key)!;
    const price = this.lookup(type, baseUrl, model);
    if (this.cache.size >= MAX_CACHED) this.cache.clear();
    this.cache.set(key, price);
    return price;
  }

  private lookup(type: ProviderType, baseUrl: string | undefined, model: string): Price | null {
    const byUrl = baseUrl ? calcPrice({ input_tokens: 0 }, model, { providerApiUrl: baseUrl }) : null;
    const providerId = TABLE_PROVIDER[type];
    const found = byUrl ?? (providerId ? calcPrice({ input_tokens: 0 }, model, { providerId }) : null);
    if (!found) return null;
    const prices = found.model_price;
    const input = rateOf(prices.input_mtok);
    // An input price and no output price is a model that writes no tokens (an embedding model): output costs nothing.
    const output = rateOf(prices.output_mtok) ?? (input !== undefined ? 0 : undefined);
    // A model priced otherwise (per request, per second) has no token price Parley could apply.
    if (input === undefined || output === undefined) return null;
    return {
      input,
      output,
      ...(prices.cache_read_mtok !== undefined ? { cacheRead: rateOf(prices.cache_read_mtok) } : {}),
      ...(prices.cache_write_mtok !== undefined ? { cacheWrite: rateOf(prices.cache_write_mtok) } : {}),
      ref: `genai-prices ${PRICE_TABLE_VERSION}: ${found.provider.id}/${found.model.id}`,
    };
  }
}
