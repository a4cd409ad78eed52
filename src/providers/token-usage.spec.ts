import { completionUsageOf, tokensFromAnthropic, tokensFromOpenAI } from './token-usage';

describe('usage by kind of token', () => {
  it("splits OpenAI's totals by their details", () => {
    expect(
      tokensFromOpenAI({
        prompt_tokens: 100,
        completion_tokens: 40,
        prompt_tokens_details: { cached_tokens: 60 },
        completion_tokens_details: { reasoning_tokens: 25 },
      }),
    ).toEqual({
      input: 40,
      cacheRead: 60,
      cacheWrite: 0,
      reasoning: 25,
      output: 15,
    });
  });

  it('takes a detail larger than its total as counted apart (some compatible servers)', () => {
    expect(
      tokensFromOpenAI({
        prompt_tokens: 5,
        completion_tokens: 3,
        prompt_tokens_details: { cached_tokens: 9 },
        completion_tokens_details: { reasoning_tokens: 7 },
      }),
    ).toEqual({
      input: 5,
      cacheRead: 9,
      cacheWrite: 0,
      reasoning: 7,
      output: 3,
    });
  });

  it("keeps Anthropic's cache reads and writes apart, and shows clients OpenAI's shape", () => {
    const tokens = tokensFromAnthropic({
      input_tokens: 7,
      cache_read_input_tokens: 300,
      cache_creation_input_tokens: 50,
      output_tokens: 9,
    });
    expect(tokens).toEqual({ input: 7, cacheRead: 300, cacheWrite: 50, reasoning: 0, output: 9 });
    expect(completionUsageOf(tokens)).toEqual({
      prompt_tokens: 357,
      completion_tokens: 9,
      total_tokens: 366,
      prompt_tokens_details: { cached_tokens: 300 },
    });
    expect(completionUsageOf({ input: 1, cacheRead: 0, cacheWrite: 0, reasoning: 0, output: 2 })).toEqual({
      prompt_tokens: 1,
      completion_tokens: 2,
      total_tokens: 3,
    });
  });
});
