import { Exclude } from 'class-transformer';

const FREE_FORM_KEY = 'parley:free-form';

/**
 * Marks a property holding free-form JSON checked by its own rule (metadata maps, chat messages
 * checked by zod). class-transformer must not copy such a value: it silently drops keys that shadow
 * Object.prototype (`toString`, `valueOf`, `constructor`, ...) and throws on `{constructor: "x"}`.
 * So the property is left out of the transformation and ValidatedInput puts the value back exactly
 * as it was received.
 */
export function FreeForm(): PropertyDecorator {
  return (target, propertyName) => {
    Exclude({ toClassOnly: true })(target, propertyName as string);
    const inherited: string[] = Reflect.getMetadata(FREE_FORM_KEY, target) ?? [];
    Reflect.defineMetadata(FREE_FORM_KEY, [...inherited, String(propertyName)], target);
  };
}

export function freeFormProperties(instance: object): ReadonlySet<string> {
  return new Set<string>(Reflect.getMetadata(FREE_FORM_KEY, instance) ?? []);
}
