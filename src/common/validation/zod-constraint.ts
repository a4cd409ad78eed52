import { registerDecorator, ValidationArguments, ValidationOptions } from 'class-validator';
import type { ZodType } from 'zod';
import { FreeForm } from './free-form';

function describeIssues(schema: ZodType, value: unknown, property: string): string {
  const result = schema.safeParse(value);
  if (result.success) return '';
  return result.error.issues
    .map((issue) => `${[property, ...issue.path.map(String)].join('.')}: ${issue.message}`)
    .join('; ');
}

/**
 * Validates a property against a zod schema. The chat message shapes are defined once in zod (the
 * spec's invoke errors are zod's issue format) and reused here by the class-validator DTOs. zod sees
 * the value as received (FreeForm), so an unknown key is reported, never dropped on the way.
 */
export function MatchesSchema(schema: ZodType, options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) => {
    FreeForm()(target, propertyName);
    registerDecorator({
      name: 'matchesSchema',
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: {
        validate: (value: unknown) => schema.safeParse(value).success,
        defaultMessage: (args: ValidationArguments) => describeIssues(schema, args.value, args.property),
      },
    });
  };
}
