import { ArgumentMetadata, Injectable, PipeTransform, Type } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate, ValidationError } from 'class-validator';
import { badRequest, isPlainObject } from '../errors';
import { freeFormProperties } from './free-form';

export interface ValidatedInputOptions {
  /** The endpoint's documented error message for an invalid body or query. */
  message: string;
  /** A field whose absence (or non-object value) has its own documented message, e.g. "Metadata is required". */
  requiredObject?: { field: string; message: string };
  /** Query strings tolerate fields they do not know (clients add their own); bodies do not. */
  allowUnknownFields?: boolean;
}

/** One line per problem: `path: reason` (unknown fields included), for the optional `details` array. */
export function describeValidationErrors(errors: ValidationError[], parent = ''): string[] {
  return errors.flatMap((error) => {
    const path = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.entries(error.constraints ?? {}).map(([rule, text]) =>
      rule === 'whitelistValidation' ? `${path}: unknown field` : text.startsWith(path) ? text : `${path}: ${text}`,
    );
    return [...own, ...describeValidationErrors(error.children ?? [], path)];
  });
}

/**
 * Validates a body or query against its DTO class with class-validator (unknown fields rejected)
 * and answers with the endpoint's own `{error: {message}}` body. Used per parameter, so each
 * endpoint states its documented message where it declares its input.
 */
@Injectable()
export class ValidatedInput implements PipeTransform {
  constructor(private readonly options: ValidatedInputOptions) {}

  async transform(value: unknown, { metatype }: ArgumentMetadata): Promise<unknown> {
    const input = value === undefined ? {} : value;
    const required = this.options.requiredObject;
    if (!isPlainObject(input)) throw badRequest(required?.message ?? this.options.message);
    if (required && !isPlainObject(input[required.field])) throw badRequest(required.message);
    if (!metatype || metatype === Object) return input;
    const instance = toInstance(metatype as Type<object>, input);
    if (!instance) throw badRequest(this.options.message);
    const dropped = restoreFreeForm(instance, input);
    const errors = await validate(instance, { whitelist: true, forbidNonWhitelisted: !this.options.allowUnknownFields, forbidUnknownValues: true });
    const problems = [...(this.options.allowUnknownFields ? [] : dropped), ...describeValidationErrors(errors)];
    if (problems.length > 0) throw badRequest(this.options.message, problems);
    return instance;
  }
}

/**
 * class-transformer throws on input that no declared field can take (a nested `{constructor: "x"}`
 * where no type is declared, nesting deep enough to exhaust the stack): an invalid body, not a 500.
 */
function toInstance(metatype: Type<object>, input: Record<string, unknown>): object | null {
  try {
    return plainToInstance(metatype, input);
  } catch {
    return null;
  }
}

/**
 * Puts FreeForm values back as received, in nested DTOs too, and lists the keys class-transformer
 * dropped by itself (keys shadowing Object.prototype such as `constructor`, `toString`,
 * `__proto__`): no DTO declares such a field, so they are unknown fields, never silently ignored.
 */
function restoreFreeForm(instance: object, raw: Record<string, unknown>, parent = ''): string[] {
  const freeForm = freeFormProperties(instance);
  const target = instance as Record<string, unknown>;
  const dropped: string[] = [];
  for (const key of Object.keys(raw)) {
    const path = parent ? `${parent}.${key}` : key;
    if (freeForm.has(key)) {
      Object.defineProperty(instance, key, { value: raw[key], enumerable: true, writable: true, configurable: true });
    } else if (!Object.prototype.hasOwnProperty.call(instance, key)) {
      dropped.push(`${path}: unknown field`);
    } else {
      dropped.push(...restoreNested(target[key], raw[key], path));
    }
  }
  return dropped;
}

function restoreNested(value: unknown, raw: unknown, path: string): string[] {
  if (Array.isArray(value) && Array.isArray(raw)) return value.flatMap((item, i) => restoreNested(item, raw[i], `${path}.${i}`));
  const isDto = typeof value === 'object' && value !== null && Object.getPrototypeOf(value) !== Object.prototype;
  return isDto && isPlainObject(raw) ? restoreFreeForm(value, raw, path) : [];
}
