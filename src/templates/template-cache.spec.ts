import { compileTemplate, TemplateCache, TemplateCompileError } from './index';

const greeting = [{ role: 'user', content: 'Hi {{name}}' }];

describe('TemplateCache', () => {
  it('returns the same compiled template for the same key', () => {
    const cache = new TemplateCache();
    const first = cache.get('version-1', greeting);
    expect(cache.get('version-1', greeting)).toBe(first);
    expect(first.render({ name: 'Ada' })[0].content).toBe('Hi Ada');
  });

  it('does not look at the messages again on a hit (a key stands for one immutable version)', () => {
    const cache = new TemplateCache();
    const first = cache.get('version-1', greeting);
    const hit = cache.get('version-1', [{ role: 'user', content: 'other {{x}}' }]);
    expect(hit).toBe(first);
    expect(hit.variables).toEqual(['name']);
  });

  it('compiles different keys separately', () => {
    const cache = new TemplateCache();
    const a = cache.get('a', greeting);
    const b = cache.get('b', greeting);
    expect(b).not.toBe(a);
    expect(cache.size).toBe(2);
  });

  it('evicts the least recently used key beyond its size', () => {
    const cache = new TemplateCache(2);
    const a = cache.get('a', greeting);
    cache.get('b', greeting);
    cache.get('a', greeting); // a is now more recent than b
    cache.get('c', greeting);

    expect(cache.size).toBe(2);
    expect(cache.has('a')).toBe(true);
    expect(cache.has('b')).toBe(false);
    expect(cache.has('c')).toBe(true);
    expect(cache.get('a', greeting)).toBe(a);
  });

  it('does not cache templates that fail to compile', () => {
    const cache = new TemplateCache();
    expect(() => cache.get('bad', [{ role: 'user', content: '{{oops' }])).toThrow(TemplateCompileError);
    expect(cache.has('bad')).toBe(false);
    expect(cache.size).toBe(0);
  });

  it('deletes and clears', () => {
    const cache = new TemplateCache();
    cache.get('a', greeting);
    cache.get('b', greeting);
    expect(cache.delete('a')).toBe(true);
    expect(cache.has('a')).toBe(false);
    cache.clear();
    expect(cache.size).toBe(0);
  });

  it('rejects a size that is not a positive integer', () => {
    expect(() => new TemplateCache(0)).toThrow(RangeError);
    expect(() => new TemplateCache(1.5)).toThrow(RangeError);
  });

  it('caches what compileTemplate would produce', () => {
    const cached = new TemplateCache().get('v', greeting);
    expect(cached.variables).toEqual(compileTemplate(greeting).variables);
    expect(cached.render({ name: 'B' })).toEqual(compileTemplate(greeting).render({ name: 'B' }));
  });

  it('renders a copy the caller may change without touching the cached template', () => {
    const template = compileTemplate([
      {
        role: 'system',
        content: [
          { type: 'text', text: 'Hi {{name}}' },
          { type: 'image_url', image_url: { url: 'https://x/{{name}}.png' } },
        ],
      },
      { role: 'assistant', content: null, tool_calls: [{ id: 't1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
    ] as never);
    const first = template.render({ name: 'A' }) as unknown as Array<Record<string, any>>;
    first[0].content[0].text = 'changed';
    first[0].content[1].image_url.url = 'changed';
    first[1].tool_calls[0].function.name = 'changed';
    expect(template.render({ name: 'B' })).toEqual([
      {
        role: 'system',
        content: [
          { type: 'text', text: 'Hi B' },
          { type: 'image_url', image_url: { url: 'https://x/B.png' } },
        ],
      },
      { role: 'assistant', content: null, tool_calls: [{ id: 't1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
    ]);
  });
});
