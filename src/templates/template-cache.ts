import { CompiledTemplate, TemplateMessage } from './template.types';
import { compileTemplate } from './template-engine';

export const DEFAULT_TEMPLATE_CACHE_SIZE = 1000;

/**
 * Compiled templates by key, least recently used evicted first. The key must identify the
 * messages for good (an immutable version id): on a hit the messages passed in are not looked at.
 */
export class TemplateCache {
  // A Map iterates in insertion order; re-inserting on every hit keeps the oldest use first.
  private readonly entries = new Map<string, CompiledTemplate>();

  constructor(private readonly maxEntries = DEFAULT_TEMPLATE_CACHE_SIZE) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) {
      throw new RangeError(`TemplateCache size must be a positive integer, got ${maxEntries}`);
    }
  }

  /** The compiled template for `key`, compiling `messages` on a miss (errors are not cached). */
  get<M extends TemplateMessage>(key: string, messages: readonly M[]): CompiledTemplate<M> {
    const cached = this.entries.get(key);
    if (cached) {
      this.entries.delete(key);
      this.entries.set(key, cached);
      return cached as CompiledTemplate<M>;
    }
    const compiled = compileTemplate(messages);
    this.entries.set(key, compiled);
    if (this.entries.size > this.maxEntries) {
      const oldestKey = this.entries.keys().next().value as string;
      this.entries.delete(oldestKey);
    }
    return compiled;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  delete(key: string): boolean {
    return this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
