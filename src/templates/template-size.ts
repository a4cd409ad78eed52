import { TemplateVariables } from './template.types';

/** A render that would pass its size bound (RenderLimits.maxChars); thrown while rendering, before the output exists. */
export class TemplateTooLargeError extends Error {
  override readonly name = 'TemplateTooLargeError';

  constructor(readonly maxChars: number) {
    super(`The rendered template would exceed ${maxChars} characters`);
  }
}

/** Bounds of one render (docs/templates.md, "Size of a rendered template"). */
export interface RenderLimits {
  /** The most characters a render may produce: static text plus every variable value it inserts. */
  maxChars: number;
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
