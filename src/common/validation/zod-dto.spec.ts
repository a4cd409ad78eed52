import 'reflect-metadata';

import { z } from 'zod';

import { ApiException, NESTED_TOO_DEEP_BODY } from '../errors';
import { InputValidationPipe } from './input-validation.pipe';
import { isZodDto, openaiBodyDto, zodDtoSchemas } from './zod-dto';

const schema = z.strictObject({ model: z.string(), stream: z.boolean().optional() });
class SampleBodyDto extends openaiBodyDto(schema, (s, body) => {
  const parsed = s.safeParse(body);
  if (!parsed.success) throw new ApiException(400, { error: { message: `bad ${String(parsed.error.issues[0].path[0] ?? '')}` } });
  return parsed.data;
}) {}

const pipe = new InputValidationPipe();
const asBody = (value: unknown) => pipe.transform(value, { type: 'body', metatype: SampleBodyDto });
const errorOf = async (value: unknown) => {
  try {
    await asBody(value);
  } catch (err) {
    return err as ApiException;
  }
  throw new Error('no error');
};

describe('zod-backed body DTOs in the global pipe', () => {
  it('answers the parsed body for a valid one', async () => {
    expect(isZodDto(SampleBodyDto)).toBe(true);
    await expect(asBody({ model: 'm', stream: true })).resolves.toEqual({ model: 'm', stream: true });
  });

  it("raises the surface's own 400 for an invalid one, and OpenAI's could-not-parse for what is not an object", async () => {
    expect((await errorOf({ model: 1 })).body).toEqual({ error: { message: 'bad model' } });
    for (const raw of [undefined, [], 'text', NESTED_TOO_DEEP_BODY]) {
      const err = await errorOf(raw);
      expect(err.getStatus()).toBe(400);
      expect((err.body as { error: { message: string } }).error.message).toMatch(/^We could not parse the JSON body of your request/);
    }
  });

  it('names its schema for Swagger: the class met, with the JSON Schema zod validates with', () => {
    const factory = (SampleBodyDto as unknown as { _OPENAPI_METADATA_FACTORY(): object })._OPENAPI_METADATA_FACTORY();
    expect(factory).toEqual({});
    const [, documented] = zodDtoSchemas().find(([name]) => name === 'SampleBodyDto')!;
    expect(documented).toMatchObject({
      type: 'object',
      required: ['model'],
      properties: { model: { type: 'string' }, stream: { type: 'boolean' } },
    });
  });

  it('leaves other classes to class-validator', () => {
    expect(isZodDto(class Plain {})).toBe(false);
  });
});
