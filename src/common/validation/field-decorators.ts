import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptions } from '@nestjs/swagger';
import { IsObject, IsString, Matches, MaxLength, MinLength, ValidateIf, ValidateNested } from 'class-validator';

/**
 * "Optional" means absent or valid: the field's other rules apply to every value but `undefined`,
 * so `null` is refused unless `nullable` says it is a documented value. (class-validator's
 * `@IsOptional` alone skips null too, which let `{"name": null}` reach a NOT NULL column.)
 * Swagger's `required`/`nullable` come from here, so the rule is stated once.
 */
export function Optional(options: { nullable?: boolean } = {}): PropertyDecorator {
  const nullable = options.nullable === true;
  return applyDecorators(
    ApiProperty({ required: false, ...(nullable ? { nullable: true } : {}) } as ApiPropertyOptions),
    ValidateIf((_object, value) => value !== undefined && !(nullable && value === null)),
  );
}

export interface TextOptions extends Omit<ApiPropertyOptions, 'type' | 'maxLength' | 'minLength' | 'pattern'> {
  /** The length of the column the value is stored in (or a smaller product limit). */
  max: number;
  min?: number;
  pattern?: RegExp;
  patternMessage?: string;
}

/** A string bounded by the column it lands in; the same bounds go to Swagger. */
export function Text({ max, min, pattern, patternMessage, ...api }: TextOptions): PropertyDecorator {
  return applyDecorators(
    ApiProperty({
      ...api,
      type: String,
      maxLength: max,
      ...(min ? { minLength: min } : {}),
      ...(pattern ? { pattern: pattern.source } : {}),
    } as ApiPropertyOptions),
    IsString(),
    MaxLength(max),
    ...(min ? [MinLength(min)] : []),
    ...(pattern ? [Matches(pattern, patternMessage ? { message: patternMessage } : {})] : []),
  );
}

const NESTED_KEY = 'parley:nested-input';

/**
 * A nested DTO: validated with its own class rules (unknown fields reported with their path).
 * InputValidationPipe builds the nested instance itself (see there why class-transformer is not used).
 */
export function Nested(factory: () => new () => object, api: Omit<ApiPropertyOptions, 'type'> = {}): PropertyDecorator {
  // Swagger recognises a lazy type by the function's name being "type".
  const type = () => factory();
  return (target, propertyName) => {
    const nested: Record<string, () => new () => object> = { ...(Reflect.getMetadata(NESTED_KEY, target) ?? {}) };
    nested[String(propertyName)] = factory;
    Reflect.defineMetadata(NESTED_KEY, nested, target);
    applyDecorators(ApiProperty({ ...api, type } as ApiPropertyOptions), IsObject(), ValidateNested())(target, propertyName);
  };
}

export function nestedTypeOf(metatype: { prototype: object }, property: string): (new () => object) | undefined {
  const nested = Reflect.getMetadata(NESTED_KEY, metatype.prototype) as Record<string, () => new () => object> | undefined;
  return nested && Object.prototype.hasOwnProperty.call(nested, property) ? nested[property]() : undefined;
}
