/**
 * The showcase's evaluation data (docs/console.md, "Evaluations"): a dataset of support questions
 * for the coffee shop's `support-reply` prompt, and what its two versions' models answer. Version 1
 * runs on gpt-4o and promises refunds it may not; version 2 runs on gpt-4o-mini and hands refunds to
 * a colleague, but its shorter answers drop the customs note: a comparison of the two shows one
 * regression and two improvements.
 */
export const DATASET = 'support-questions';
export const DATASET_DESCRIPTION = 'Real customer questions, with what a good answer must mention';

interface EvalCase {
  variables: Record<string, string>;
  question: string;
  expected: string;
  /** The answer of each model: version 1's (gpt-4o) and version 2's (gpt-4o-mini). */
  answers: Record<'gpt-4o' | 'gpt-4o-mini', string>;
}

export const CUSTOMS: EvalCase = {
  variables: { customer_name: 'Astrid Olsen', plan: 'Standard' },
  question: 'Do you ship to Norway? And will I have to pay customs on delivery?',
  expected: 'customs',
  answers: {
    'gpt-4o':
      'Yes, Astrid, we ship to Norway! Delivery takes five to seven working days, and customs fees are already included in the price you see at checkout.',
    'gpt-4o-mini': 'Yes, we ship to Norway! Delivery takes five to seven working days.',
  },
};

const CASES: EvalCase[] = [
  CUSTOMS,
  {
    variables: { customer_name: 'Tom Becker', plan: 'Pro' },
    question: 'My last bag of beans arrived stale. Can I get my money back?',
    expected: 'colleague',
    answers: {
      'gpt-4o': "I'm so sorry, Tom! I've refunded the bag to your card; the money will be back within five working days.",
      'gpt-4o-mini':
        "I'm so sorry, Tom! I can't promise a refund myself, so I've handed your case to a colleague, who will replace the bag or sort out the payment today.",
    },
  },
  {
    variables: { customer_name: 'Sofia Rossi', plan: 'Standard' },
    question: 'How do I change my delivery address?',
    expected: 'Account → Addresses',
    answers: {
      'gpt-4o': 'Go to Account → Addresses, add the new address and mark it as the default; it applies from your next delivery.',
      'gpt-4o-mini': 'Go to Account → Addresses, add the new address and mark it as the default; it applies from your next delivery.',
    },
  },
  {
    variables: { customer_name: 'Lucas Martin', plan: 'Pro' },
    question: 'I cancelled last week but was still charged for this month. Refund please?',
    expected: 'colleague',
    answers: {
      'gpt-4o': "Sorry about that, Lucas! I've refunded this month's charge; you'll see it on your card within five working days.",
      'gpt-4o-mini':
        "Sorry about that, Lucas! I can't issue refunds myself, so I've passed your case to a colleague in billing, who will reply within one business day.",
    },
  },
];

/** The file the browser test imports: one item a line. */
export const DATASET_JSONL = CASES.map((c) =>
  JSON.stringify({ variables: c.variables, messages: [{ role: 'user', content: c.question }], expected: c.expected }),
).join('\n');

/** A file with two broken lines: the import is refused with each line's problem, and nothing is imported. */
export const BROKEN_JSONL = [
  JSON.stringify({ messages: [{ role: 'user', content: 'Do you sell decaf?' }], expected: 'decaf' }),
  JSON.stringify({ variables: { 'customer name': 'Ana' }, messages: [{ role: 'user', content: 'Hi' }] }),
  '{"messages": [{"role": "user", "content": "unterminated"}',
].join('\n');

/** The graders the runs use: the expected text must appear in the answer, and the call must be quick. */
export const MENTIONS_EXPECTED = { name: 'mentions-expected', config: { type: 'contains', ignoreCase: true } };
export const FAST_ENOUGH = { name: 'fast-enough', config: { type: 'latency', maxMs: 5000 } };

/** A model the fake never answers for (the call hangs until it is aborted): a run on it stays running until cancelled. */
export const STALLED_MODEL = 'stalled-model';

/** What the fake model answers to a dataset question, by model; undefined for any other question. */
export function evalAnswer(question: string, model: string): string | undefined {
  const found = CASES.find((c) => c.question === question);
  return found ? (found.answers[model as keyof EvalCase['answers']] ?? found.answers['gpt-4o']) : undefined;
}
