import { registerDecorator, ValidationArguments, ValidationOptions } from 'class-validator';

export const METADATA_MAX_KEYS = 64;
export const METADATA_MAX_KEY_LENGTH = 64;
export const METADATA_MAX_STRING_LENGTH = 512;

export type Metadata = Record<string, string | number>;

/** Problems with a metadata object, one line each; empty when it is valid (DESIGN.md §3 limits). */
export function metadataProblems(value: unknown, field = 'metadata'): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return [`${field} must be an object of key-value pairs`];
  }
  const entries = Object.entries(value);
  const problems: string[] = [];
  if (entries.length > METADATA_MAX_KEYS) problems.push(`${field} has ${entries.length} keys; at most ${METADATA_MAX_KEYS} are allowed`);
  for (const [key, item] of entries) {
    if (key.length === 0 || key.length > METADATA_MAX_KEY_LENGTH) {
      problems.push(`${field} key "${key.slice(0, 80)}" must be 1 to ${METADATA_MAX_KEY_LENGTH} characters`);
    } else if (key === '__proto__') {
      // JSON allows it, but JavaScript (the row mapping on the way back included) takes it for the
      // prototype, so it would be stored and then vanish from every later read.
      problems.push(`${field} key "__proto__" is not allowed`);
    } else if (typeof item === 'string') {
      if (item.length > METADATA_MAX_STRING_LENGTH) {
        problems.push(`${field}.${key} is longer than ${METADATA_MAX_STRING_LENGTH} characters`);
      }
    } else if (typeof item !== 'number' || !Number.isFinite(item)) {
      problems.push(`${field}.${key} must be a string or a number`);
    }
  }
  return problems;
}

/** class-validator decorator for metadata fields; the messages name each offending key (InputValidationPipe keeps keys verbatim). */
export function IsMetadata(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) => {
    registerDecorator({
      name: 'isMetadata',
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: {
        validate: (value: unknown, args: ValidationArguments) => metadataProblems(value, args.property).length === 0,
        defaultMessage: (args: ValidationArguments) => metadataProblems(args.value, args.property).join('; '),
      },
    });
  };
}
