import { SLUG_PATTERN } from '../common/validation/slug';
import { PROVIDER_NAME_PATTERN } from './content/version-content.schema';

/**
 * Slugs and names from paths and query strings are checked before they reach SQL: no stored row
 * can have another shape, and some strings (a NUL byte) would make PostgreSQL fail the query.
 */
export const isSlugLike = (value: unknown): value is string => typeof value === 'string' && SLUG_PATTERN.test(value);
export const isProviderName = (value: unknown): value is string => typeof value === 'string' && PROVIDER_NAME_PATTERN.test(value);
