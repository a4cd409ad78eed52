import { compileTemplate } from '../../templates';
import { planCompletions, planJsonl, REPLAY_DRAFT, translateTemplate } from './run-plan';

const rendered = (template: { role: string; content: unknown }[], variables: Record<string, string>) =>
  compileTemplate(template as never)
    .render(variables, { maxChars: 100_000 })
    .map((message) => message.content);

describe("an OpenAI run's data source as an experiment run", () => {
  it('translates {{item.x}} to the variable {{x}}; a helper-named field is read as this.<name>; the values render verbatim', () => {
    const result = translateTemplate(
      [
        { role: 'developer', content: 'Answer about {{ item.topic }} by default.' },
        { role: 'user', content: [{ type: 'input_text', text: '{{item.question}} / {{item.default}}' }] },
      ],
      'data_source.input_messages.template',
    );
    if ('param' in result) throw new Error(result.message);
    expect(result.variables.sort()).toEqual(['default', 'question', 'topic']);
    expect(result.template).toEqual([
      { role: 'system', content: 'Answer about {{topic}} by default.' },
      { role: 'user', content: '{{question}} / {{this.default}}' },
    ]);
    expect(rendered(result.template, { topic: '<b>&{{x}}', question: 'Why?', default: 'd' })).toEqual([
      'Answer about <b>&{{x}} by default.',
      'Why? / d',
    ]);
  });

  it('refuses what Handlebars would read otherwise: sample references, nested paths, a backslash before a reference', () => {
    const at = 'data_source.input_messages.template';
    const refusal = (content: string) => translateTemplate([{ role: 'user', content }], at);
    expect(refusal('{{sample.output_text}}')).toMatchObject({ param: `${at}[0].content` });
    expect(refusal('{{item.a.b}}')).toMatchObject({ message: expect.stringMatching(/top-level fields only/) });
    expect(refusal('\\{{item.a}}')).toMatchObject({ message: expect.stringMatching(/backslash/) });
    expect(refusal('{{#each item}}')).toMatchObject({ param: `${at}[0].content` });
  });

  it('jsonl: each sample is replayed by local/echo as the one user message; its row is the item’s expected value', () => {
    const plan = planJsonl([{ item: { q: 1 }, sample: { output_text: ' Paris\n' } }, { item: { q: 2 } }], 'data_source.source.content');
    expect(plan).toEqual({
      target: { draft: REPLAY_DRAFT },
      items: [
        {
          variables: {},
          messages: [{ role: 'user', content: ' Paris\n' }],
          expected: { item: { q: 1 }, sample: { output_text: ' Paris\n' } },
          metadata: { datasource_item_id: 0 },
        },
        { variables: {}, messages: [], expected: { item: { q: 2 } }, metadata: { datasource_item_id: 1 } },
      ],
    });
    expect(planJsonl([{ item: {}, sample: { output: 'x' } }], 'c')).toEqual({
      param: 'c[0].sample.output_text',
      message: 'A sample needs output_text: the text that is graded',
    });
  });

  it('completions on a deployment: the version live in the environment, the declared variables, input_messages rendered per item', () => {
    const plan = planCompletions(
      {
        type: 'completions',
        source: { type: 'file_content', content: [] },
        input_messages: { type: 'template', template: [{ role: 'user', content: 'Also: {{item.extra}}' }] },
      },
      [{ item: { answer: 'Paris', n: 2, extra: { a: 1 } } }],
      { type: 'deployment', slug: 'capitals', environment: 'production', declaredVariables: ['answer', 'n', 'missing'] },
    );
    expect(plan).toEqual({
      target: { prompt: 'capitals', environment: 'production' },
      items: [
        {
          variables: { answer: 'Paris', n: '2' },
          messages: [{ role: 'user', content: 'Also: {"a":1}' }],
          expected: { item: { answer: 'Paris', n: 2, extra: { a: 1 } } },
          metadata: { datasource_item_id: 0 },
        },
      ],
    });
  });

  it('completions on provider/model: a draft with the sampling params; sampling params on a deployment are refused', () => {
    const source = {
      type: 'completions' as const,
      source: { type: 'file_content' as const, content: [] },
      input_messages: { type: 'template' as const, template: [{ role: 'user' as const, content: '{{item.q}}' }] },
      sampling_params: { temperature: 0.2, max_completion_tokens: 5, seed: 7 },
    };
    const plan = planCompletions(source, [{ item: { q: 'hi' } }], { type: 'provider', provider: 'local', model: 'echo' });
    expect(plan).toMatchObject({
      target: {
        draft: {
          template: [{ role: 'user', content: '{{q}}' }],
          provider: 'local',
          model: 'echo',
          parameters: { temperature: 0.2, max_tokens: 5, seed: 7 },
        },
      },
      items: [{ variables: { q: 'hi' }, messages: [] }],
    });
    const deployed = planCompletions(source, [{ item: { q: 'hi' } }], {
      type: 'deployment',
      slug: 'p',
      environment: 'production',
      declaredVariables: [],
    });
    expect(deployed).toMatchObject({ param: 'data_source.sampling_params' });
    const { input_messages: _none, ...bare } = source;
    expect(planCompletions(bare, [{ item: {} }], { type: 'provider', provider: 'local', model: 'echo' })).toMatchObject({
      param: 'data_source.input_messages',
    });
  });
});
