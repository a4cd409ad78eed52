import { CompiledTemplate, RenderLimits, TemplateMessage, TemplateVariables } from './template.types';
import { analyzeTemplateSource } from './template-analyzer';
import { TemplateStringLocation, toTemplateCompileError } from './template-compile-error';
import { TEMPLATE_COMPILE_OPTIONS, TEMPLATE_RUNTIME_OPTIONS, templateEnvironment } from './template-environment';
import { meteredContext, readBoundOf, RenderMeter } from './template-size';

/** A string of a template that is rendered: string content, a text part's text, an image URL. */
interface TemplatedString extends TemplateStringLocation {
  kind: 'content' | 'text' | 'image_url';
  source: string;
}

/** Lists the templated strings of a template; every other field is data and copied as is. */
function templatedStrings(messages: readonly TemplateMessage[]): TemplatedString[] {
  const found: TemplatedString[] = [];
  messages.forEach((message, messageIndex) => {
    const { content } = message;
    if (typeof content === 'string') {
      found.push({ messageIndex, partIndex: null, kind: 'content', source: content });
      return;
    }
    if (!Array.isArray(content)) return; // null content (tool calls): nothing to render
    (content as readonly unknown[]).forEach((part, partIndex) => {
      const candidate = part as { type?: unknown; text?: unknown; image_url?: { url?: unknown } };
      if (candidate.type === 'text' && typeof candidate.text === 'string') {
        found.push({ messageIndex, partIndex, kind: 'text', source: candidate.text });
      } else if (candidate.type === 'image_url' && typeof candidate.image_url?.url === 'string') {
        found.push({ messageIndex, partIndex, kind: 'image_url', source: candidate.image_url.url });
      }
    });
  });
  return found;
}

function sorted(names: Iterable<string>): string[] {
  return [...new Set(names)].sort();
}

/**
 * The variables a template reads, sorted and de-duplicated: root names of the paths it uses, not
 * helpers, block parameters, `@` data, or paths relative to an `#each`/`#with` context.
 * Throws `TemplateCompileError` if the template does not compile.
 */
export function scanTemplateVariables(messages: readonly TemplateMessage[]): string[] {
  const names: string[] = [];
  for (const templated of templatedStrings(messages)) {
    try {
      names.push(...analyzeTemplateSource(templated.source));
    } catch (error) {
      throw toTemplateCompileError(error, templated);
    }
  }
  return sorted(names);
}

type RenderString = (context: object, options: RuntimeOptions) => string;

/** Parses, checks and compiles one string now, so that every error surfaces here and not at render. */
function compileString(templated: TemplatedString): { render: RenderString; variables: Set<string> } {
  try {
    const variables = analyzeTemplateSource(templated.source);
    const render: RenderString = templateEnvironment.compile(templated.source, TEMPLATE_COMPILE_OPTIONS);
    // Handlebars compiles lazily on first use; rendering once with no data forces it.
    render({}, TEMPLATE_RUNTIME_OPTIONS);
    return { render, variables };
  } catch (error) {
    throw toTemplateCompileError(error, templated);
  }
}

/** A deep copy of JSON data (what templates are: parsed from JSON, stored as jsonb). */
function copyData(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyData);
  if (value === null || typeof value !== 'object') return value;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = copyData((value as Record<string, unknown>)[key]);
    // JSON.parse makes "__proto__" an own key; an assignment would set the prototype instead.
    if (key === '__proto__') Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
    else copy[key] = item;
  }
  return copy;
}

/** Writes a rendered string back into the (copied) message it came from. */
function assign(messages: Array<{ content: unknown }>, templated: TemplatedString, value: string): void {
  const message = messages[templated.messageIndex];
  if (templated.kind === 'content') {
    message.content = value;
    return;
  }
  const parts = message.content as Array<{ text?: string; image_url?: { url: string } }>;
  const part = parts[templated.partIndex!];
  if (templated.kind === 'text') part.text = value;
  else part.image_url!.url = value;
}

/**
 * Compiles every templated string of a template once. Rendering never compiles again: variable
 * values are inserted as data, so a value of `{{b}}` comes out as the literal text `{{b}}`.
 * Throws `TemplateCompileError` (with message index and line) if any string does not compile.
 */
export function compileTemplate<M extends TemplateMessage>(messages: readonly M[]): CompiledTemplate<M> {
  // Our own copy: later changes to the caller's objects must not change a cached template.
  const templateMessages: readonly M[] = structuredClone(messages);
  const compiled = templatedStrings(templateMessages).map((templated) => ({
    templated,
    ...compileString(templated),
  }));
  const variables = Object.freeze(sorted(compiled.flatMap(({ variables: names }) => [...names])));
  const bound = readBoundOf(compiled.map(({ templated }) => templated.source));

  return {
    variables,
    render(values: TemplateVariables, limits?: RenderLimits): M[] {
      // Metered only when the upper bound computed before rendering could pass the limit.
      const meter = limits && !bound.fits(values, limits.maxChars) ? new RenderMeter(limits.maxChars) : undefined;
      // A copy, so that no helper can reach the caller's object; metered when the render is bounded.
      const context = meter ? meteredContext(values, meter) : { ...values };
      // The caller gets its own messages to change. A plain copy: structuredClone cost ~4 µs per
      // render, on every invoke (docs/performance.md).
      const rendered = copyData(templateMessages) as M[];
      const writable = rendered as unknown as Array<{ content: unknown }>;
      // Output of the strings rendered so far: the values read bound one string while it renders,
      // this bounds the whole template (its static text included).
      const output = meter ? new RenderMeter(limits!.maxChars) : undefined;
      for (const { templated, render } of compiled) {
        const text = render(context, TEMPLATE_RUNTIME_OPTIONS);
        output?.charge(text.length);
        assign(writable, templated, text);
      }
      return rendered;
    },
  };
}
