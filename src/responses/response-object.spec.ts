import type { ChatCompletion } from '../providers';
import { responseBaseOf } from './response-base';
import { pendingResponse, responseOf } from './response-object';

const base = responseBaseOf(
  { instructions: 'Be brief.', metadata: { team: 'support' }, temperature: 0.3, user: 'u-1', store: false },
  {
    uuid: '0192f0c1-a2b3-7c4d-8e9f-00112233aabb',
    model: 'support-bot',
    conversationId: '0192f0c1-a2b3-7c4d-8e9f-001122330000',
    parameters: { temperature: 0.3, max_tokens: 200 },
    createdAt: 1_700_000_000,
  },
);

const completion: ChatCompletion = {
  id: 'c',
  object: 'chat.completion',
  created: 1,
  model: 'echo',
  choices: [{ index: 0, finish_reason: 'stop', logprobs: null, message: { role: 'assistant', content: 'Hello.', refusal: null } }],
  usage: { prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 },
};

/** The fields after the request-derived ones, in the order the Response object lists them. */
const OWN_FIELDS = ['object', 'status', 'completed_at', 'output', 'output_text', 'error', 'incomplete_details', 'usage'];

describe('the Response object (written out as one literal, not a spread of its base)', () => {
  it('carries every field of its base, with its value and in its order, then its own fields', () => {
    const response = responseOf(base, completion);
    expect(Object.keys(response)).toEqual([...Object.keys(base), ...OWN_FIELDS]);
    for (const [field, value] of Object.entries(base)) expect(response[field as keyof typeof response]).toBe(value);
    expect(response).toMatchObject({
      object: 'response',
      status: 'completed',
      output_text: 'Hello.',
      error: null,
      incomplete_details: null,
      usage: { input_tokens: 7, output_tokens: 2, total_tokens: 9 },
    });
    expect(response.output).toEqual([expect.objectContaining({ type: 'message', role: 'assistant', status: 'completed' })]);
  });

  it('does the same before any output (the streamed response.created event)', () => {
    const pending = pendingResponse(base);
    expect(Object.keys(pending)).toEqual([...Object.keys(base), ...OWN_FIELDS]);
    expect(pending).toMatchObject({
      ...base,
      object: 'response',
      status: 'in_progress',
      completed_at: null,
      output: [],
      output_text: '',
      usage: null,
    });
  });
});
