import { ArgumentMetadata, Injectable, PipeTransform, Type } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate, ValidationError } from 'class-validator';
import { badRequest, isPlainObject } from '../errors';

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
    const instance = plainToInstance(metatype as Type<object>, input);
    const errors = await validate(instance, { whitelist: true, forbidNonWhitelisted: !this.options.allowUnknownFields, forbidUnknownValues: true });
    if (errors.length > 0) throw badRequest(this.options.message, describeValidationErrors(errors));
    return instance;
  }
}
