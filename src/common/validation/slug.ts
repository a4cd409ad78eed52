import { applyDecorators } from '@nestjs/common';
import { NotContains } from 'class-validator';

import { Text } from './field-decorators';

export const SLUG_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/**
 * Slugs from paths and query strings are checked before they reach SQL: no stored row can have
 * another shape, and some strings (a NUL byte) would make PostgreSQL fail the query.
 */
/** Provider names have the shape of slugs (without the slugs' "--" rule). */
export const PROVIDER_NAME_PATTERN = SLUG_PATTERN;

export const isSlugLike = (value: unknown): value is string => typeof value === 'string' && SLUG_PATTERN.test(value);

/** Provider names from paths are checked before they reach SQL, like slugs (see isSlugLike). */
export const isProviderName = (value: unknown): value is string => typeof value === 'string' && PROVIDER_NAME_PATTERN.test(value);

/** URL slugs: lower-case letters, digits, `-` and `_`, 1–64 characters, starting with a letter or digit. */
export function IsSlug(example: string): PropertyDecorator {
  return applyDecorators(
    Text({
      max: 64,
      pattern: SLUG_PATTERN,
      patternMessage: '$property must be 1-64 lower-case letters, digits, "-" or "_", starting with a letter or digit',
      example,
    }),
    NotContains('--', { message: '$property must not contain "--"' }),
  );
}
