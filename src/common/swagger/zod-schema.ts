import { z, ZodType } from 'zod';

/** An OpenAPI 3.0 schema generated from a zod schema, so Swagger shows exactly what is validated. */
export function openApiSchemaOf(schema: ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { target: 'openapi-3.0', io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return rest;
}
