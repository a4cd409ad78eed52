import type { z, ZodType } from 'zod';

import { invalidBody, isMalformedJsonBody, isPlainObject, malformedBodyReason, NESTED_TOO_DEEP_BODY, openaiError } from '../errors';
import { openApiSchemaOf } from '../swagger/zod-schema';

/** A body DTO class whose shape is a zod schema: the global pipe answers `parse(raw)` for it. */
export interface ZodDtoClass<T> {
  new (): T;
  /** The validated body, or the surface's documented 400 (thrown). */
  parse(raw: unknown): T;
}

const ZOD_DTO = Symbol('parley:zod-dto');

/** The zod schema of each zodDto class Swagger has met, by class name: enrichDocument puts them in the document. */
const SCHEMAS_BY_NAME = new Map<string, ZodType>();

/**
 * The zod half of the hybrid pipe (docs/architecture.md, "The request lifecycle"): where a wire
 * format is someone else's (OpenAI's), its body is a zod schema, and each surface words its own
 * 400. `class XBodyDto extends zodDto(schema, parse) {}` is taken by `@Body()`, validated by the
 * global InputValidationPipe like a class-validator DTO, and documented by Swagger as the named
 * schema `XBodyDto` that zod generates, so the document and the check cannot drift apart.
 */
export function zodDto<S extends ZodType>(schema: S, parse: (raw: unknown) => z.output<S>): ZodDtoClass<z.output<S>> {
  class ZodDto {
    static readonly [ZOD_DTO] = true;
    static parse(raw: unknown): z.output<S> {
      return parse(raw);
    }
    /**
     * @nestjs/swagger asks a model class for its properties here (the hook its CLI plugin
     * generates), as a method of the class met, so `this` is the subclass and names the schema.
     * No properties: zod's JSON Schema replaces the component whole (zodDtoSchemas).
     */
    static _OPENAPI_METADATA_FACTORY(this: { name: string }): Record<string, never> {
      SCHEMAS_BY_NAME.set(this.name, schema);
      return {};
    }
  }
  return ZodDto as unknown as ZodDtoClass<z.output<S>>;
}

/** The OpenAPI schemas of the zodDto classes in a document being built, by component name. */
export function zodDtoSchemas(): Array<[string, Record<string, unknown>]> {
  return [...SCHEMAS_BY_NAME].map(([name, schema]) => [name, openApiSchemaOf(schema)]);
}

export function isZodDto(metatype: unknown): metatype is ZodDtoClass<unknown> {
  return typeof metatype === 'function' && (metatype as unknown as Record<symbol, unknown>)[ZOD_DTO] === true;
}

/**
 * A body in OpenAI's wire format: the body parser's markers (too deep, not JSON) and anything but
 * an object are OpenAI's "could not parse" 400; the rest is the surface's own zod check.
 */
export function openaiBodyDto<S extends ZodType>(schema: S, validate: (schema: S, body: Record<string, unknown>) => z.output<S>) {
  return zodDto(schema, (raw) => {
    if (raw === NESTED_TOO_DEEP_BODY)
      throw openaiError(400, `We could not parse the JSON body of your request: ${malformedBodyReason(raw)}.`);
    if (isMalformedJsonBody(raw) || !isPlainObject(raw))
      throw openaiError(400, 'We could not parse the JSON body of your request: expected a JSON object.');
    return validate(schema, raw);
  });
}

/**
 * A `/v2` body whose shape is nested enough to be a zod schema (a dataset's items, a grader's
 * check): anything but a JSON object, and every issue zod finds, are the management routes'
 * documented 400 `{error: {message: "Invalid request body", details: ["path: problem", ...]}}`.
 */
export function managementBodyDto<S extends ZodType>(schema: S) {
  return zodDto(schema, (raw) => {
    if (raw === NESTED_TOO_DEEP_BODY || isMalformedJsonBody(raw) || !isPlainObject(raw))
      throw invalidBody([
        `body: ${raw === NESTED_TOO_DEEP_BODY || isMalformedJsonBody(raw) ? malformedBodyReason(raw) : 'expected a JSON object'}`,
      ]);
    const parsed = schema.safeParse(raw);
    if (parsed.success) return parsed.data;
    throw invalidBody(
      parsed.error.issues.slice(0, 20).map((issue) => {
        const message = issue.code === 'invalid_type' && 'input' in issue && issue.input === undefined ? 'Required' : issue.message;
        const path = issue.path.join('.');
        return path ? `${path}: ${message}` : message;
      }),
    );
  });
}
