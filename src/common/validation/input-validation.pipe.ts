import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { getMetadataStorage, validate, ValidationError } from 'class-validator';

import { badRequest, isPlainObject, malformedBodyReason, NESTED_TOO_DEEP_BODY } from '../errors';
import { nestedTypeOf } from './field-decorators';
import { inputRulesOf } from './input-rules';
import { isZodDto } from './zod-dto';

type DtoClass = new () => object;

/** One line per problem: `path: reason`, for the optional `details` array (docs/decisions.md "HTTP and errors"). */
export function describeValidationErrors(errors: ValidationError[], parent = ''): string[] {
  return errors.flatMap((error) => {
    const path = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((text) => (text.startsWith(path) ? text : `${path}: ${text}`));
    return [...own, ...describeValidationErrors(error.children ?? [], path)];
  });
}

/**
 * The one validation pipe (registered globally in AppModule), hybrid: a `@Body()` typed with a
 * zodDto class (a wire format that is someone else's, OpenAI's) is that class's `parse`; a `@Body()`
 * or `@Query()` typed with a class carrying class-validator rules is checked against it; anything
 * else (`unknown`, path parameters, the spec's invoke body, which zod checks once the deployment
 * is known: docs/architecture.md) passes untouched.
 *
 * Invalid input is the endpoint's documented `{error: {message, details}}` (bodies default to
 * "Invalid request body", queries to "Invalid request parameters"; a DTO names another with
 * `@InputErrors`). Bodies refuse unknown fields; query strings tolerate them (clients add their own).
 *
 * The DTO instance is built here rather than by class-transformer: only declared fields are copied,
 * each value exactly as received. class-transformer drops keys that shadow Object.prototype
 * (`toString`, `constructor`) inside free-form values such as metadata, and throws on some inputs.
 */
@Injectable()
export class InputValidationPipe implements PipeTransform {
  private readonly fieldsByClass = new Map<DtoClass, ReadonlySet<string>>();

  async transform(value: unknown, { type, metatype }: ArgumentMetadata): Promise<unknown> {
    if ((type !== 'body' && type !== 'query') || !metatype) return value;
    if (type === 'body' && isZodDto(metatype)) return metatype.parse(value);
    const fields = this.fieldsOf(metatype as DtoClass);
    if (fields.size === 0) return value;
    const rules = inputRulesOf(metatype);
    const message = rules.message ?? (type === 'body' ? 'Invalid request body' : 'Invalid request parameters');
    const input = value === undefined ? {} : value;
    const required = rules.requiredObject;
    if (input === NESTED_TOO_DEEP_BODY) throw badRequest(message, [malformedBodyReason(input)]);
    if (!isPlainObject(input)) throw badRequest(required?.message ?? message);
    if (required && !isPlainObject(input[required.field])) throw badRequest(required.message);
    const unknownFields: string[] = [];
    // The body parser refuses U+0000 in bodies; a query string spells it as %00 (docs/security.md "Bounded inputs").
    const unstorable = type === 'query' ? fieldsHoldingNul(input) : [];
    const instance = this.instantiate(metatype as DtoClass, input, '', unknownFields);
    const errors = await validate(instance, { forbidUnknownValues: true });
    const problems = [...(type === 'body' ? unknownFields : []), ...unstorable, ...describeValidationErrors(errors)];
    if (problems.length > 0) throw badRequest(message, problems);
    return instance;
  }

  /** A new instance holding the declared fields present in `raw`; the others are listed as unknown. */
  private instantiate(metatype: DtoClass, raw: Record<string, unknown>, parent: string, unknownFields: string[]): object {
    const fields = this.fieldsOf(metatype);
    const instance = Object.create(metatype.prototype) as object;
    for (const key of Object.keys(raw)) {
      const path = parent ? `${parent}.${key}` : key;
      if (!fields.has(key)) {
        unknownFields.push(`${path}: unknown field`);
        continue;
      }
      const nestedType = nestedTypeOf(metatype, key);
      const item = raw[key];
      const value = nestedType && isPlainObject(item) ? this.instantiate(nestedType, item, path, unknownFields) : item;
      Object.defineProperty(instance, key, { value, enumerable: true, writable: true, configurable: true });
    }
    return instance;
  }

  /** The properties a class (and its parents) declares rules for; empty for a class without rules. */
  private fieldsOf(metatype: DtoClass): ReadonlySet<string> {
    let fields = this.fieldsByClass.get(metatype);
    if (!fields) {
      const rules = getMetadataStorage().getTargetValidationMetadatas(metatype, '', true, false);
      fields = new Set(rules.map((rule) => rule.propertyName));
      this.fieldsByClass.set(metatype, fields);
    }
    return fields;
  }
}

/** Query parameters (names or values, arrays and the extended parser's objects included) holding U+0000, which PostgreSQL cannot compare or store. */
function fieldsHoldingNul(query: Record<string, unknown>): string[] {
  const holds = (value: unknown): boolean =>
    typeof value === 'string'
      ? value.includes('\u0000')
      : typeof value === 'object' && value !== null && Object.entries(value).some(([k, v]) => k.includes('\u0000') || holds(v));
  return Object.entries(query)
    .filter(([key, value]) => key.includes('\u0000') || holds(value))
    .map(([key]) => `${key.replace(/\u0000/g, '\\u0000')}: must not contain U+0000`);
}
