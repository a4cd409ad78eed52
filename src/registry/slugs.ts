import { PROVIDER_NAME_PATTERN } from './content/version-content.schema';

export { isSlugLike } from '../common/validation/slug';

/** Provider names from paths are checked before they reach SQL, like slugs (see isSlugLike). */
export const isProviderName = (value: unknown): value is string => typeof value === 'string' && PROVIDER_NAME_PATTERN.test(value);
