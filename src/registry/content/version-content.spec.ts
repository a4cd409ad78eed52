import { canonicalJson, contentHash } from './content-hash';
import { formatIssue, prepareVersionContent } from './version-content';

const base = { template: [{ role: 'system', content: 'Hi {{name}}' }], model: 'echo' };

describe('canonicalJson / contentHash', () => {
  it('ignores key order and undefined members, keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, 1], c: undefined } })).toBe('{"a":{"d":[2,1]},"b":1}');
    const one = prepareVersionContent({ ...base, parameters: { temperature: 1, top_p: 0.5 } });
    const two = prepareVersionContent({ parameters: { top_p: 0.5, temperature: 1 }, model: 'echo', template: base.template });
    expect(one.ok && two.ok && one.value.contentHash === two.value.contentHash).toBe(true);
  });

  it('changes with any part of the content', () => {
    const hash = (input: object) => {
      const r = prepareVersionContent(input);
      if (!r.ok) throw new Error(JSON.stringify(r.issues));
      return r.value.contentHash;
    };
    const h = hash(base);
    expect(hash({ ...base, model: 'other' })).not.toBe(h);
    expect(hash({ ...base, variables: { name: 'x' } })).not.toBe(h);
    expect(hash({ ...base, template: [{ role: 'user', content: 'Hi {{name}}' }] })).not.toBe(h);
    expect(hash({ ...base, provider: 'local' })).toBe(h); // the default, spelled out
  });

  it('hashes the normalized content (image detail filled in)', () => {
    const withDefault = prepareVersionContent({
      ...base,
      template: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'u' } }] }],
    });
    const explicit = prepareVersionContent({
      ...base,
      template: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'u', detail: 'auto' } }] }],
    });
    expect(withDefault.ok && explicit.ok && withDefault.value.contentHash === explicit.value.contentHash).toBe(true);
    expect(withDefault.ok && contentHash(withDefault.value.content)).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('prepareVersionContent', () => {
  it('declares the template variables plus those with defaults, sorted', () => {
    const r = prepareVersionContent({
      ...base,
      template: [{ role: 'system', content: '{{#each items}}{{this}} {{@root.sep}}{{/each}} {{zeta}}' }],
      variables: { alpha: '1' },
    });
    expect(r.ok && r.value.declaredVariables).toEqual(['alpha', 'items', 'sep', 'zeta']);
  });

  it('locates compile errors in content parts', () => {
    const r = prepareVersionContent({
      ...base,
      template: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'ok' },
            { type: 'text', text: '{{#if}}x{{/if}}' },
          ],
        },
      ],
    });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(formatIssue(r.issues[0])).toMatch(/^template\.0\.content\.1\.text: template does not compile: "if" takes 1 argument/);
  });

  it('reports every shape problem, and missing fields as Required', () => {
    const r = prepareVersionContent({ template: [], parameters: { seed: 1.5, stop: [] }, extra: 1 });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      const lines = r.issues.map((i) => formatIssue(i));
      expect(lines).toEqual(
        expect.arrayContaining([
          'template: Expected at least one message',
          'model: Required',
          expect.stringMatching(/^parameters\.seed: /),
          expect.stringMatching(/^parameters\.stop: /),
          expect.stringMatching(/^: Unrecognized key: "extra"|Unrecognized key: "extra"/),
        ]),
      );
    }
  });

  it('checks tool_choice against the tools', () => {
    const tools = [{ type: 'function', function: { name: 'lookup' } }];
    expect(
      prepareVersionContent({ ...base, tools, parameters: { tool_choice: { type: 'function', function: { name: 'lookup' } } } }).ok,
    ).toBe(true);
    const required = prepareVersionContent({ ...base, parameters: { tool_choice: 'required' } });
    expect(!required.ok && required.issues[0].message).toBe('"required" needs at least one tool');
  });
});

describe('prepareVersionContent for an embedding entry', () => {
  it('keeps a provider, a model and dimensions; stores no template, tools or variables; hashes what it stores', () => {
    const r = prepareVersionContent({ model: 'embed', parameters: { dimensions: 64 } }, 'embedding');
    if (!r.ok) throw new Error(JSON.stringify(r.issues));
    expect(r.value.content).toEqual({
      provider: 'local',
      model: 'embed',
      parameters: { dimensions: 64 },
      template: [],
      tools: [],
      variables: {},
    });
    expect(r.value.declaredVariables).toEqual([]);
    const other = prepareVersionContent({ model: 'embed', parameters: { dimensions: 32 } }, 'embedding');
    expect(other.ok && other.value.contentHash).not.toBe(r.value.contentHash);
  });

  it('names every chat-only field and every bad parameter', () => {
    const r = prepareVersionContent(
      { model: 'embed', template: [], tools: [], parameters: { temperature: 1, dimensions: 0 } },
      'embedding',
    );
    expect(r.ok).toBe(false);
    const messages = r.ok ? [] : r.issues.map((issue) => formatIssue(issue));
    expect(messages).toEqual(
      expect.arrayContaining([
        'template: an embedding entry has no template',
        'tools: an embedding entry has no tools',
        expect.stringMatching(/^parameters: .*temperature/),
        expect.stringMatching(/^parameters\.dimensions: /),
      ]),
    );
  });

  it('a prompt takes no dimensions', () => {
    const r = prepareVersionContent({ ...base, parameters: { dimensions: 8 } });
    expect(r.ok).toBe(false);
  });
});
