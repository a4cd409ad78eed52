import type { TemplateVariables } from './template.types';

/** A render that would pass its size bound (RenderLimits.maxChars); thrown while rendering, before the output exists. */
export class TemplateTooLargeError extends Error {
  override readonly name = 'TemplateTooLargeError';

  constructor(readonly maxChars: number) {
    super(`The rendered template would exceed ${maxChars} characters`);
  }
}

/** Characters a render has produced or read so far, against its bound. */
export class RenderMeter {
  private chars = 0;

  constructor(private readonly maxChars: number) {}

  charge(chars: number): void {
    this.chars += chars;
    if (this.chars > this.maxChars) throw new TemplateTooLargeError(this.maxChars);
  }
}

/**
 * The render context with every value behind a getter that charges its length to `meter` each
 * time Handlebars reads it: a template that repeats a large variable a thousand times (or loops
 * over the variables) stops at the bound while rendering, instead of building the whole string
 * first. A read that prints nothing (`{{#if doc}}`) is charged too: the bound is conservative.
 */
export function meteredContext(values: TemplateVariables, meter: RenderMeter): Record<string, string> {
  const context: Record<string, string> = {};
  for (const key of Object.keys(values)) {
    const value = values[key];
    const length = typeof value === 'string' ? value.length : JSON.stringify(value ?? null).length;
    Object.defineProperty(context, key, {
      enumerable: true,
      configurable: true,
      get: () => {
        meter.charge(length);
        return value;
      },
    });
  }
  return context;
}

/** A JSON string escape makes one character at most six (`\u0000`). */
const JSON_ESCAPE_FACTOR = 6;

/**
 * An upper bound of a render's size known before rendering, from the template's sources: without
 * `#each` the output is at most the sources' static text plus, for every name written inside a
 * mustache (a generous count of the variable reads), the largest value (six times under `json`).
 * Most renders fit it and skip the metered context; the others are metered while they render.
 */
export function readBoundOf(sources: readonly string[]): { fits(values: TemplateVariables, maxChars: number): boolean } {
  let staticChars = 0;
  let reads = 0;
  let loops = false;
  let escapes = false;
  for (const source of sources) {
    staticChars += source.length;
    for (const mustache of source.match(/\{\{[^}]*\}\}/g) ?? []) {
      reads += (mustache.match(/[^\s{}#/^~&>!=()"'.]+/g) ?? []).length;
      // `{{#each …}}`, and `{{else each …}}` chained to another block.
      if (/\beach\b/.test(mustache)) loops = true;
      if (/\bjson\b/.test(mustache)) escapes = true;
    }
  }
  const factor = escapes ? JSON_ESCAPE_FACTOR : 1;
  return {
    fits(values, maxChars) {
      if (loops) return false;
      let largest = 0;
      for (const key of Object.keys(values)) {
        const length = values[key]?.length ?? 0;
        if (length > largest) largest = length;
      }
      return staticChars + reads * largest * factor <= maxChars;
    },
  };
}
