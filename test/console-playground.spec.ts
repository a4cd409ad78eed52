import type { components } from '../console/src/api/schema';
import {
  addMessage,
  cardText,
  messagesFromJson,
  messagesToJson,
  moveMessage,
  removeMessage,
  rolesFor,
  withRole,
  withText,
} from '../console/src/screens/playground/message-list';
import { addModel, columnBody, columnsOf, sentVariables, statsText } from '../console/src/screens/playground/playground-compare';
import { declaredVariables, type Draft, EMPTY_DRAFT, runBody } from '../console/src/screens/playground/playground-draft';
import { templateVariables } from '../console/src/screens/playground/template-variables';
import { analyzeTemplateSource } from '../src/templates/template-analyzer';

type Version = components['schemas']['VersionDto'];
type ChatMessage = Version['template'][number];

/** The playground's draft logic (docs/console.md, "Playground"): pure functions, no browser. */
const TEMPLATES: [string, string[]][] = [
  ['Hello {{name}}, welcome to {{ company }}.', ['company', 'name']],
  ['{{customer.name}} on {{customer.plan}}', ['customer']],
  ['{{{raw_html}}} and {{~trimmed~}}', ['raw_html', 'trimmed']],
  ['{{#if vip}}VIP{{else}}{{tier}}{{/if}}', ['tier', 'vip']],
  ['{{#unless trial}}paid{{/unless}}', ['trial']],
  ['{{#each items}}{{name}} {{@index}} {{../company}} {{@root.currency}}{{/each}}', ['company', 'currency', 'items']],
  ['{{#each items as |item i|}}{{item.title}} {{i}} {{shop}}{{/each}}', ['items']],
  ['{{#with customer}}{{name}} {{../tone}}{{/with}}', ['customer', 'tone']],
  ['{{#customer}}{{name}}{{/customer}} {{^orders}}no orders for {{who}}{{/orders}}', ['customer', 'orders', 'who']],
  ['{{#eq tier "pro"}}pro{{else}}{{fallback}}{{/eq}}', ['fallback', 'tier']],
  ['{{#if (and vip (not trial))}}{{greet}}{{/if}}', ['greet', 'trial', 'vip']],
  ['{{default tone "neutral"}} {{json question 2}} {{lookup table key}}', ['key', 'question', 'table', 'tone']],
  ['{{#if a}}x{{else if b}}{{c}}{{else}}{{d}}{{/if}}', ['a', 'b', 'c', 'd']],
  ['{{!-- {{hidden}} --}} {{! also {{hidden2}} }} \\{{literal}} {{shown}}', ['shown']],
  ['{{{{raw}}}}{{not_a_variable}}{{{{/raw}}}} {{after}}', ['after']],
  ['{{this.default}} and {{this}} and {{./local}}', ['default', 'local']],
  ['{{"first name"}} {{log note}}', ['first name', 'note']],
  ['{{#if (gt count 9)}}many {{#each rows}}{{this.cell}}{{/each}}{{/if}}', ['count', 'rows']],
  ['no variables at all', []],
];

describe('console playground: variables detected from the template', () => {
  it.each(TEMPLATES)('%s', (source, expected) => {
    expect(templateVariables([source])).toEqual(expected);
  });

  it("finds what the server's own analyzer finds, on every template above", () => {
    for (const [source] of TEMPLATES) expect(templateVariables([source])).toEqual([...analyzeTemplateSource(source)].sort());
  });

  it('reads half-typed templates without failing: what is complete so far', () => {
    expect(templateVariables(['Hi {{name}}, {{#if vip'])).toEqual(['name']);
    expect(templateVariables(['{{#each items}}{{x}}'])).toEqual(['items']);
    expect(templateVariables(['{{else}} {{/if}} {{n'])).toEqual([]);
  });

  it("are the draft's declared variables with its defaults, from string contents, text parts and image URLs", () => {
    const draft: Draft = {
      ...EMPTY_DRAFT,
      template: [
        { role: 'system', content: 'For {{company}}' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look at {{subject}}' },
            { type: 'image_url', image_url: { url: '{{image_url}}', detail: 'auto' } },
          ],
        },
      ],
      variableDefaults: '{"tone": "warm", "company": "Acme"}',
    };
    expect(declaredVariables(draft)).toEqual(['company', 'image_url', 'subject', 'tone']);
    expect(declaredVariables({ ...draft, variableDefaults: '{not json' })).toEqual(['company', 'image_url', 'subject']);
  });
});

const msgs = (...roles: ChatMessage['role'][]): ChatMessage[] => roles.map((role, i) => ({ role, content: `m${i}` }));

describe('console playground: messages, chat-style', () => {
  it('moves a message up and down, and nowhere past either end', () => {
    const list = msgs('system', 'user', 'assistant');
    expect(moveMessage(list, 2, -1).map((m) => m.content)).toEqual(['m0', 'm2', 'm1']);
    expect(moveMessage(list, 0, 1).map((m) => m.content)).toEqual(['m1', 'm0', 'm2']);
    expect(moveMessage(list, 0, -1)).toEqual(list);
    expect(moveMessage(list, 2, 1)).toEqual(list);
    expect(moveMessage(list, 0, -1)).not.toBe(list);
  });

  it('removes one message and adds an empty one whose role follows the last', () => {
    expect(removeMessage(msgs('system', 'user', 'assistant'), 1).map((m) => m.role)).toEqual(['system', 'assistant']);
    expect(addMessage(msgs('system')).at(-1)).toEqual({ role: 'user', content: '' });
    expect(addMessage(msgs('system', 'user')).at(-1)).toEqual({ role: 'assistant', content: '' });
    expect(addMessage([])).toEqual([{ role: 'user', content: '' }]);
  });

  it('offers the tool role only where a tool call is waiting for its result, and a tool message answers the oldest open call', () => {
    const list: ChatMessage[] = [
      { role: 'user', content: 'Weather in Oslo and Bergen?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } },
          { id: 'call_2', type: 'function', function: { name: 'weather', arguments: '{"city":"Bergen"}' } },
        ],
      },
      { role: 'tool', content: '12°C', tool_call_id: 'call_1' },
      { role: 'user', content: '' },
    ];
    expect(rolesFor(list, 0)).toEqual(['system', 'user', 'assistant']);
    expect(rolesFor(list, 2)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(rolesFor(list, 3)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(withRole(list, 3, 'tool')[3]).toEqual({ role: 'tool', content: '', tool_call_id: 'call_2' });
    expect(withRole(list, 2, 'user')[2]).toEqual({ role: 'user', content: '12°C' });
    expect(rolesFor(msgs('system', 'user'), 1)).toEqual(['system', 'user', 'assistant']);
  });

  it('edits the text of a card, keeping a null content on a message that only calls tools', () => {
    const calling: ChatMessage = {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
    };
    expect(withText([calling], 0, '')[0].content).toBeNull();
    expect(withText([calling], 0, 'Let me check')[0]).toEqual({ ...calling, content: 'Let me check' });
    expect(cardText(calling)).toBe('');
    expect(cardText({ role: 'user', content: [{ type: 'text', text: 'x' }] })).toBeNull();
  });
});

describe('console playground: the JSON view', () => {
  it('round-trips every field of every message, and the same list back to the same text', () => {
    const list: ChatMessage[] = [
      { role: 'system', content: 'You help {{company}}.' },
      { role: 'user', name: 'ada', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png', detail: 'low' } }] },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', content: 'ok', tool_call_id: 'c' },
    ];
    const text = messagesToJson(list);
    const parsed = messagesFromJson(text);
    expect(parsed).toEqual({ messages: list, problem: null });
    expect(messagesToJson(parsed.messages!)).toBe(text);
  });

  it('says what is wrong with text that is not a list of messages, and returns no messages', () => {
    const problem = (text: string) => messagesFromJson(text).problem;
    expect(problem('[{"role": "user", "content": "hi"')).toMatch(/^Not valid JSON: /);
    expect(problem('{"role": "user"}')).toBe('The messages must be a JSON list: [ {"role": …, "content": …}, … ]');
    expect(problem('[1]')).toBe('Message 1 is not an object');
    expect(problem('[{"role": "user", "content": "a"}, {"role": "robot", "content": "b"}]')).toBe(
      'Message 2: "role" must be one of system, user, assistant, tool, function',
    );
    expect(problem('[{"role": "user", "content": 5}]')).toBe('Message 1: "content" must be text, a list of parts or null');
    expect(messagesFromJson('[]')).toEqual({ messages: [], problem: null });
  });
});

describe('console playground: columns compared side by side', () => {
  const version = (n: number, declared: string[], provider = 'openai'): Version =>
    ({ version: n, declaredVariables: declared, provider, model: 'gpt-4o-mini', tools: [] }) as unknown as Version;
  const draft: Draft = {
    ...EMPTY_DRAFT,
    provider: 'openai',
    model: 'gpt-4o',
    template: [{ role: 'system', content: 'For {{company}}, {{customer_name}} on {{plan}}' }],
    parameters: '{"temperature": 0.2}',
    variableDefaults: '{"company": "Larkspur"}',
  };
  const typed = { customer_name: 'Lena', plan: '' };
  const base = version(2, ['company', 'customer_name', 'plan']);
  const body = runBody(draft, typed, '[{"role": "user", "content": "Hi"}]', base);

  it('puts the draft first, then the chosen saved versions, then the models, each once', () => {
    const versions = [version(3, []), version(2, []), version(1, [])];
    let models = addModel([], { provider: ' local ', model: 'echo' });
    models = addModel(models, { provider: 'local', model: 'echo' });
    models = addModel(models, { provider: 'openai', model: '' });
    expect(columnsOf(versions, [1, 3], models).map((c) => [c.id, c.title])).toEqual([
      ['draft', 'Draft'],
      ['v3', 'Saved v3'],
      ['v1', 'Saved v1'],
      ['m:local/echo', 'Draft on local/echo'],
    ]);
  });

  it("sends each column the same messages, with the variables its version declares: a saved version's own default for what was not typed", () => {
    const [, v1, onEcho, onOpenai] = columnsOf(
      [version(1, ['company'])],
      [1],
      [
        { provider: 'local', model: 'echo' },
        { provider: 'openai', model: 'gpt-4.1' },
      ],
    );
    expect(body.variables).toEqual({ company: 'Larkspur', customer_name: 'Lena' });
    expect(columnBody(columnsOf([], [], [])[0], body, typed, base)).toBe(body);
    expect(columnBody(v1, body, typed, base)).toEqual({ variables: {}, messages: body.messages, metadata: body.metadata });
    const echo = columnBody(onEcho, body, typed, base) as Record<string, unknown>;
    expect(echo).toMatchObject({ provider: 'local', model: 'echo', temperature: 0.2, template: draft.template, variables: body.variables });
    // The base's provider is not named again (a key limited to some environments may not name one).
    const same = columnBody(onOpenai, body, typed, base) as Record<string, unknown>;
    expect([same.model, 'provider' in same]).toEqual(['gpt-4.1', false]);
    expect(sentVariables(echo)).toEqual(['company', 'customer_name']);
  });

  it('words the figures of a run', () => {
    expect(statsText({ latencyMs: 1234, ttftMs: 80, promptTokens: 42, completionTokens: null, costUsd: '0.00042', served: '' })).toEqual({
      latency: '1,234 ms (first token 80 ms)',
      tokens: '42 in, — out',
      cost: '$0.00042',
    });
    expect(statsText({ latencyMs: 5, ttftMs: null, promptTokens: 1, completionTokens: 1, costUsd: null, served: '' }).cost).toBe(
      'no price known',
    );
  });
});
