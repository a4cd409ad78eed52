export { isProviderName, isSlugLike } from '../common/validation/slug';
