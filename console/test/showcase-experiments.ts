/**
 * The live experiment the split screen's pictures show (docs/console.md, "Splits"): the coffee
 * shop's `order-status` prompt, which answers "where is my order?" messages. Version 1 runs on
 * gpt-4o and apologises at length; version 2 runs on gpt-4o-mini, gives the delivery day first and
 * links the tracking page. The fake upstream (showcase.ts) answers each question with the model's
 * canned answer; the test scores version 2's answers helpful far more often.
 */
export const ORDER_PROMPT = 'order-status';

export const ORDER_V1 = {
  provider: 'openai',
  model: 'gpt-4o',
  parameters: { temperature: 0.7 },
  variables: { company: 'Larkspur Coffee' },
  template: [
    {
      role: 'system',
      content: "You are the customer-support assistant of {{company}}. Answer the customer's question about their order politely.",
    },
  ],
  message: 'First version',
};

export const ORDER_V2 = {
  provider: 'openai',
  model: 'gpt-4o-mini',
  parameters: { temperature: 0.3, max_tokens: 200 },
  variables: { company: 'Larkspur Coffee' },
  template: [
    {
      role: 'system',
      content:
        'You are the customer-support assistant of {{company}}. Give the delivery day first, then link the tracking page. Two sentences at most.',
    },
  ],
  message: 'Delivery day first, tracking link; gpt-4o-mini',
};

interface OrderQuestion {
  question: string;
  answers: Record<'gpt-4o' | 'gpt-4o-mini', string>;
}

export const ORDER_QUESTIONS: OrderQuestion[] = [
  {
    question: 'Where is my order #5120? It was supposed to arrive on Tuesday.',
    answers: {
      'gpt-4o':
        "We're very sorry for the delay with order #5120. We understand how frustrating it is to wait, and we truly appreciate your patience while the carrier works through a backlog. Please don't hesitate to reach out again if there's anything else we can do.",
      'gpt-4o-mini':
        'Order #5120 arrives this Thursday: it was held at the carrier’s depot for a day. You can follow it at larkspur.coffee/track/5120.',
    },
  },
  {
    question: 'Has my espresso blend shipped yet? I ordered it on Friday.',
    answers: {
      'gpt-4o':
        "Thank you so much for your order and for choosing our espresso blend! We roast every batch to order, which can take a little time, and we'll make sure it reaches you as soon as possible.",
      'gpt-4o-mini': 'Yes: your espresso blend shipped on Monday and arrives tomorrow. Track it at larkspur.coffee/track.',
    },
  },
  {
    question: 'My tracking link has said "label created" for four days. Is my parcel lost?',
    answers: {
      'gpt-4o':
        "We're sorry to hear about the tracking status. Sometimes the carrier takes a while to scan parcels, and we appreciate your understanding. If you have any other questions, we're always happy to help.",
      'gpt-4o-mini':
        "Your parcel isn't lost: the carrier scans it on arrival, and it's due on Friday. If it hasn't moved by then, reply here and we'll send a new one.",
    },
  },
  {
    question: 'Can you tell me when my grinder will be delivered? Order #5187.',
    answers: {
      'gpt-4o':
        'Thank you for reaching out about order #5187! Our grinders are very popular at the moment, and our team is working hard to get every order out the door as quickly as we can.',
      'gpt-4o-mini': 'Order #5187 (your grinder) arrives next Wednesday. Track it at larkspur.coffee/track/5187.',
    },
  },
];

const BY_QUESTION = new Map(ORDER_QUESTIONS.map((q) => [q.question, q.answers]));

/** The canned answer of `model` to one of the order questions; undefined for any other question. */
export function orderAnswer(question: string, model: string): string | undefined {
  return BY_QUESTION.get(question)?.[model as 'gpt-4o' | 'gpt-4o-mini'];
}
