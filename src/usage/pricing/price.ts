import type { TokenCounts } from '../../providers';
import { Decimal, parseDecimal, sumOfProducts } from './decimal';

/** A price per million tokens that steps up once a call's prompt passes a size (long-context pricing). */
export interface TieredRate {
  base: number | string;
  tiers: Array<{ start: number; price: number | string }>;
}

export type Rate = number | string | TieredRate;

/** USD per million tokens of each kind; a missing cache rate is the input rate. */
export interface Price {
  input: Rate;
  cacheRead?: Rate;
  cacheWrite?: Rate;
  output: Rate;
  /** Where it comes from, stored on each log: `genai-prices <version>: <provider>/<model>`, `override: <provider>/<model>`. */
  ref: string;
}

function rateFor(rate: Rate, promptTokens: number): Decimal {
  if (typeof rate !== 'object') return parseDecimal(rate);
  let chosen: number | string = rate.base;
  for (const tier of [...rate.tiers].sort((a, b) => a.start - b.start)) if (promptTokens > tier.start) chosen = tier.price;
  return parseDecimal(chosen);
}

/**
 * The cost of one call in USD, exact (a decimal string): each kind of token at its rate, reasoning
 * at the output rate. docs/usage.md, "Cost".
 */
export function costOf(tokens: TokenCounts, price: Price): string {
  const prompt = tokens.input + tokens.cacheRead + tokens.cacheWrite;
  const input = rateFor(price.input, prompt);
  const output = rateFor(price.output, prompt);
  return sumOfProducts(
    [
      { count: tokens.input, price: input },
      { count: tokens.cacheRead, price: price.cacheRead === undefined ? input : rateFor(price.cacheRead, prompt) },
      { count: tokens.cacheWrite, price: price.cacheWrite === undefined ? input : rateFor(price.cacheWrite, prompt) },
      { count: tokens.output + tokens.reasoning, price: output },
    ],
    6,
  );
}
