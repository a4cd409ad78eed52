import { ApiProperty, ApiPropertyOptions } from '@nestjs/swagger';
import { registerDecorator, ValidationArguments } from 'class-validator';
import type { ZodType } from 'zod';

import { openApiSchemaOf } from '../swagger/zod-schema';

function describeIssues(schema: ZodType, value: unknown, property: string): string {
  const result = schema.safeParse(value);
  if (result.success) return '';
  return result.error.issues.map((issue) => `${[property, ...issue.path.map(String)].join('.')}: ${issue.message}`).join('; ');
}

/**
 * A property of a class-validator DTO whose shape is a zod schema: the chat message shapes are
 * defined once in zod (the spec's invoke errors are zod's issue format) and reused by the message
 * and version DTOs. Swagger's schema for the property is generated from the same zod schema.
 * zod sees the value exactly as received (InputValidationPipe copies it untouched), so an
 * unknown key anywhere is reported, never dropped on the way.
 */
export function MatchesSchema(schema: ZodType, api: Omit<ApiPropertyOptions, 'type'> = {}): PropertyDecorator {
  return (target, propertyName) => {
    const generated = openApiSchemaOf(schema);
    // An object schema's `required` lists its own fields; whether the property itself is required is
    // `selfRequired` (`required: false` in `api` for an optional one, placed above @Optional()).
    const { required: own, ...rest } = api;
    const self = Array.isArray(generated.required) ? { selfRequired: own !== false } : own === undefined ? {} : { required: own };
    ApiProperty({ ...generated, ...self, ...rest } as ApiPropertyOptions)(target, propertyName);
    registerDecorator({
      name: 'matchesSchema',
      target: target.constructor,
      propertyName: propertyName as string,
      validator: {
        validate: (value: unknown) => schema.safeParse(value).success,
        defaultMessage: (args: ValidationArguments) => describeIssues(schema, args.value, args.property),
      },
    });
  };
}
