import { z } from 'zod';

import { modelParametersSchema } from './model-parameters.schema';
import { parameterCatalogue, shapeOf } from './parameter-catalogue';

const typeOf = (type: string) => parameterCatalogue().find((entry) => entry.type === type)!;
const parameter = (type: string, name: string) => typeOf(type).parameters.find((p) => p.name === name)!;

describe('the parameter catalogue (GET /v2/providers/parameters)', () => {
  it('lists every parameter of the schema, in its order, for each provider type', () => {
    const names = Object.keys(modelParametersSchema.shape);
    expect(parameterCatalogue().map((entry) => entry.type)).toEqual(['local', 'openai', 'anthropic']);
    for (const entry of parameterCatalogue()) expect(entry.parameters.map((p) => p.name)).toEqual(names);
  });

  it("takes the bounds from the schema, and no bound where the schema's is only the safe-integer limit", () => {
    expect(parameter('openai', 'temperature')).toMatchObject({ control: 'number', minimum: 0, maximum: 2, default: 1, sent: true });
    expect(parameter('openai', 'top_p')).toMatchObject({ control: 'number', minimum: 0, maximum: 1 });
    expect(parameter('openai', 'presence_penalty')).toMatchObject({ control: 'number', minimum: -2, maximum: 2, default: 0 });
    expect(parameter('openai', 'max_tokens')).toMatchObject({ control: 'integer', minimum: 1, maximum: null, default: null });
    expect(parameter('openai', 'seed')).toMatchObject({ control: 'integer', minimum: null, maximum: null });
    expect(parameter('openai', 'stop')).toMatchObject({ control: 'text-list', maxItems: 4, sent: true });
  });

  it('offers the values of an enum, and of an object holding one, with the values a provider type does not send left out', () => {
    expect(parameter('openai', 'response_format')).toMatchObject({
      control: 'choice',
      choices: [{ type: 'json_object' }, { type: 'text' }],
      otherValues: false,
      default: { type: 'text' },
    });
    // Neither local nor Anthropic answers in JSON mode (their adapters' unsupportedParam).
    expect(parameter('local', 'response_format').choices).toEqual([{ type: 'text' }]);
    expect(parameter('anthropic', 'response_format').choices).toEqual([{ type: 'text' }]);
    expect(parameter('openai', 'tool_choice')).toMatchObject({
      control: 'choice',
      choices: ['auto', 'required', 'none'],
      otherValues: true,
    });
  });

  it("marks what Anthropic's adapter leaves out as not sent, and gives its own default answer length", () => {
    const sent = Object.fromEntries(typeOf('anthropic').parameters.map((p) => [p.name, p.sent]));
    expect(sent).toEqual({
      max_tokens: true,
      temperature: false,
      top_p: false,
      presence_penalty: false,
      frequency_penalty: false,
      seed: false,
      stop: true,
      response_format: true,
      tool_choice: true,
    });
    expect(parameter('anthropic', 'max_tokens').default).toBe(1024);
    expect(typeOf('openai').parameters.every((p) => p.sent)).toBe(true);
  });

  it('names the models only where the server knows them: the local provider', () => {
    expect(typeOf('local').models).toEqual(['echo']);
    expect(typeOf('openai').models).toBeNull();
    expect(typeOf('anthropic').models).toBeNull();
    expect(typeOf('local').parameters.every((p) => p.default === null)).toBe(true);
  });

  it('gives every parameter a description for a person', () => {
    for (const entry of parameterCatalogue()) for (const p of entry.parameters) expect(p.description.length).toBeGreaterThan(10);
  });

  it('offers as JSON a schema it has no control for', () => {
    expect(shapeOf(z.toJSONSchema(z.object({ a: z.string() })) as object)).toMatchObject({ control: 'json' });
    expect(shapeOf({ anyOf: [{ type: 'boolean' }, { type: 'object' }] })).toMatchObject({ control: 'json' });
  });
});
