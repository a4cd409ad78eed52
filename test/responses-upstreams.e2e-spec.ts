import OpenAI from 'openai';

import {
  anthropicEvents,
  anthropicJson,
  anthropicMessage,
  anthropicStream,
  startFakeAnthropicUpstream,
} from './fakes/fake-anthropic-upstream';
import { FakeUpstream, openaiCompletion, openaiJson, startFakeOpenAIUpstream } from './fakes/fake-openai-upstream';
import { createProject, TestProject } from './support/factories';
import { addProviderCredential, deploy, INVOKE_APP_ENV, listen } from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

/** /v1/responses translated to chat completions (OpenAI-compatible upstream) and to Anthropic Messages. */
describe('responses through the fake OpenAI-compatible and Anthropic upstreams', () => {
  let t: TestApp;
  let p: TestProject;
  let openai: OpenAI;
  let oaFake: FakeUpstream;
  let anFake: FakeUpstream;
  const weather = {
    type: 'function' as const,
    name: 'get_weather',
    description: 'Weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } } },
    strict: false,
  };

  beforeAll(async () => {
    oaFake = await startFakeOpenAIUpstream();
    anFake = await startFakeAnthropicUpstream();
    t = await createTestApp(INVOKE_APP_ENV);
    const base = await listen(t);
    p = await createProject(t);
    openai = new OpenAI({ baseURL: `${base}/v1`, apiKey: p.key, maxRetries: 0 });
    await addProviderCredential(t, p, { name: 'upstream', type: 'openai', baseUrl: oaFake.url, apiKey: 'sk-up' });
    await addProviderCredential(t, p, { name: 'claude', type: 'anthropic', baseUrl: anFake.url, apiKey: 'sk-ant' });
    await deploy(t, p, {
      slug: 'remote',
      provider: 'upstream',
      model: 'gpt-stored',
      template: [{ role: 'system', content: 'Be {{tone}}.' }],
      variables: { tone: 'kind' },
    });
    await deploy(t, p, {
      slug: 'bard',
      provider: 'claude',
      model: 'claude-stored',
      template: [{ role: 'system', content: 'Rhyme about {{topic}}.' }],
    });
  });
  afterAll(async () => {
    await t.close();
    await oaFake.close();
    await anFake.close();
  });

  it('OpenAI-compatible: fields translated to chat completions (instructions, max_output_tokens, text.format json_schema, tools)', async () => {
    oaFake.setNext(openaiJson(openaiCompletion({ content: '{"ok":true}' })));
    const format = {
      type: 'json_schema' as const,
      name: 'answer',
      schema: { type: 'object', properties: { ok: { type: 'boolean' } } },
      strict: true,
    };
    const response = await openai.responses.create({
      model: 'upstream/gpt-direct',
      instructions: 'Short.',
      input: 'json please',
      max_output_tokens: 40,
      top_p: 0.9,
      text: { format },
      tools: [weather],
      tool_choice: 'auto',
    });
    expect(response.output_text).toBe('{"ok":true}');
    const sent = oaFake.requests.at(-1)!.body;
    expect(sent.messages).toEqual([
      { role: 'system', content: 'Short.' },
      { role: 'user', content: 'json please' },
    ]);
    expect(sent).toMatchObject({
      model: 'gpt-direct',
      top_p: 0.9,
      tool_choice: 'auto',
      response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: format.schema, strict: true } },
    });
    expect(sent.max_tokens ?? sent.max_completion_tokens).toBe(40);
    expect(sent.tools).toEqual([
      {
        type: 'function',
        function: { name: 'get_weather', description: 'Weather of a city', parameters: weather.parameters, strict: false },
      },
    ]);
  });

  it('OpenAI-compatible: prompt + variables, streaming helper, conversation history sent upstream, tool round trip', async () => {
    const conv = await openai.conversations.create({
      items: [
        { role: 'user', content: 'earlier question' },
        { role: 'assistant', content: 'earlier answer' },
      ],
    });
    const final = await openai.responses
      .stream({ prompt: { id: 'remote', variables: { tone: 'exact' } }, input: 'now this', conversation: conv.id })
      .finalResponse();
    expect(final.output_text).toBe('now this');
    const sent = oaFake.requests.at(-1)!.body;
    expect(sent.stream).toBe(true);
    expect(sent.messages).toEqual([
      { role: 'system', content: 'Be exact.' },
      { role: 'user', content: 'earlier question' },
      { role: 'assistant', content: 'earlier answer' },
      { role: 'user', content: 'now this' },
    ]);

    oaFake.setNext(openaiJson(openaiCompletion({ toolCalls: [{ id: 'call_w1', name: 'get_weather', arguments: '{"city":"Oslo"}' }] })));
    const call = await openai.responses.create({ model: 'upstream/gpt-direct', input: 'weather in Oslo?', tools: [weather] });
    expect(call.output).toMatchObject([{ type: 'function_call', call_id: 'call_w1', name: 'get_weather', arguments: '{"city":"Oslo"}' }]);
    oaFake.setNext(openaiJson(openaiCompletion({ content: 'It is 3°C.' })));
    const done = await openai.responses.create({
      model: 'upstream/gpt-direct',
      previous_response_id: call.id,
      tools: [weather],
      input: [{ type: 'function_call_output', call_id: 'call_w1', output: '3°C' }],
    });
    expect(done.output_text).toBe('It is 3°C.');
    expect(oaFake.requests.at(-1)!.body.messages).toEqual([
      { role: 'user', content: 'weather in Oslo?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_w1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_w1', content: '3°C' },
    ]);
  });

  it('Anthropic: plain, streamed, with a deployed prompt and a tool round trip', async () => {
    const plain = await openai.responses.create({
      model: 'claude/claude-direct',
      instructions: 'Terse.',
      input: 'hello claude',
      max_output_tokens: 30,
    });
    expect(plain.output_text).toBe('hello claude');
    expect(anFake.requests.at(-1)!.body).toMatchObject({
      model: 'claude-direct',
      system: 'Terse.',
      max_tokens: 30,
      messages: [{ role: 'user', content: 'hello claude' }],
    });

    anFake.setNext(anthropicStream(anthropicEvents({ text: ['Roses ', 'are red'] })));
    const streamed = await openai.responses
      .stream({ prompt: { id: 'bard@production', variables: { topic: 'tea' } }, input: 'go' })
      .finalResponse();
    expect(streamed.output_text).toBe('Roses are red');
    expect(anFake.requests.at(-1)!.body).toMatchObject({ model: 'claude-stored', system: 'Rhyme about tea.', stream: true });

    anFake.setNext(anthropicJson(anthropicMessage({ toolUses: [{ id: 'toolu_1', name: 'get_weather', input: { city: 'Rome' } }] })));
    const call = await openai.responses.create({ model: 'claude/claude-direct', input: 'weather in Rome?', tools: [weather] });
    expect(call.output).toMatchObject([{ type: 'function_call', call_id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Rome"}' }]);
    anFake.setNext(anthropicJson(anthropicMessage({ text: 'Rome: 18°C' })));
    const done = await openai.responses.create({
      model: 'claude/claude-direct',
      previous_response_id: call.id,
      tools: [weather],
      input: [{ type: 'function_call_output', call_id: 'toolu_1', output: '18°C' }],
    });
    expect(done.output_text).toBe('Rome: 18°C');
    const last = anFake.requests.at(-1)!.body;
    expect(last.messages.at(-1)).toEqual({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '18°C' }] });
  });
});
