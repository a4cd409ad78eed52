import { AnthropicProvider } from './anthropic.provider';
import { LocalProvider } from './local.provider';
import type { ChatCompletionTool, ProviderRequest } from './provider.types';
import { unhonouredFields } from './routing-targets';

const base: ProviderRequest = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };
const tools: ChatCompletionTool[] = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }];

describe('unhonouredFields: what a routing target cannot honour, by the adapters’ own unsupportedParam', () => {
  it('names a JSON answer for local and anthropic, which cannot give one, and nothing for openai', () => {
    const json: ProviderRequest = { ...base, response_format: { type: 'json_object' } };
    expect(unhonouredFields('local', json)).toEqual(['response_format']);
    expect(unhonouredFields('anthropic', json)).toEqual(['response_format']);
    expect(unhonouredFields('openai', json)).toEqual([]);
    expect(unhonouredFields('local', { ...base, response_format: { type: 'text' } })).toEqual([]);
  });

  it('asks each field on its own: a sampling parameter the adapter names first hides nothing, and is not itself asked', () => {
    const request: ProviderRequest = { ...base, temperature: 0.2, response_format: { type: 'json_object' }, tools, tool_choice: 'auto' };
    expect(new AnthropicProvider().unsupportedParam(request)).toBe('temperature');
    expect(unhonouredFields('anthropic', request)).toEqual(['response_format']);
    expect(unhonouredFields('local', { ...base, tools, tool_choice: 'required' })).toEqual([]);
  });

  it('agrees with the adapters on every field it asks about', () => {
    const cases: ProviderRequest[] = [
      { ...base, response_format: { type: 'json_object' } },
      { ...base, tools },
      { ...base, reasoning_effort: 'high' },
    ];
    for (const request of cases) {
      expect(unhonouredFields('local', request).length > 0).toBe(new LocalProvider().unsupportedParam(request) !== undefined);
      expect(unhonouredFields('anthropic', request).length > 0).toBe(new AnthropicProvider().unsupportedParam(request) !== undefined);
    }
  });

  it('names nothing for a type Parley has no adapter for (the credential check refuses it elsewhere)', () => {
    expect(unhonouredFields('cohere', { ...base, response_format: { type: 'json_object' } })).toEqual([]);
  });
});
