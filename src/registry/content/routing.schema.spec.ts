import { contentHash } from './content-hash';
import { formatIssue, prepareVersionContent } from './version-content';

const template = [{ role: 'system', content: 'Hi' }];
const targets = [
  { provider: 'local', model: 'echo' },
  { provider: 'backup', model: 'llama', parameters: { temperature: 0.3 } },
];

function issues(input: object): string[] {
  const r = prepareVersionContent(input);
  return r.ok ? [] : r.issues.map((issue) => formatIssue(issue));
}

describe('a version with a routing block', () => {
  it('takes provider and model from the first target, with every fallback reason by default', () => {
    const r = prepareVersionContent({ template, routing: { targets } });
    if (!r.ok) throw new Error(JSON.stringify(r.issues));
    expect(r.value.content).toMatchObject({ provider: 'local', model: 'echo' });
    expect(r.value.content.routing).toEqual({
      strategy: 'priority',
      targets,
      fallbackOn: ['rate_limit', 'server_error', 'timeout', 'connection', 'first_token_timeout'],
    });
  });

  it('hashes the block, and leaves the hash of a version without one as it was', () => {
    const plain = prepareVersionContent({ template, model: 'echo' });
    const routed = prepareVersionContent({ template, routing: { targets } });
    if (!plain.ok || !routed.ok) throw new Error('refused');
    const { routing: _routing, cache: _cache, ...rest } = plain.value.content;
    expect(plain.value.contentHash).toBe(contentHash(rest));
    expect(routed.value.contentHash).not.toBe(plain.value.contentHash);
    const cached = prepareVersionContent({ template, model: 'echo', cache: { ttlSeconds: 60 } });
    expect(cached.ok && cached.value.contentHash).not.toBe(plain.value.contentHash);
  });

  it('refuses a provider or model that is not the first target, and a missing model without a block', () => {
    expect(issues({ template, provider: 'backup', model: 'llama', routing: { targets } })).toEqual([
      'provider: must be the first routing target\'s ("local") or left out',
      'model: must be the first routing target\'s ("echo") or left out',
    ]);
    expect(issues({ template })).toEqual(['model: Required']);
  });

  it('refuses weights outside weighted routing, all-zero weights, repeats and unknown reasons', () => {
    expect(issues({ template, routing: { targets: [{ ...targets[0], weight: 2 }] } })).toEqual([
      'routing.targets.0.weight: only the "weighted" strategy uses weights',
    ]);
    expect(issues({ template, routing: { strategy: 'weighted', targets: [{ ...targets[0], weight: 0 }] } })).toEqual([
      'routing.targets: weighted routing needs a target with a weight above 0',
    ]);
    expect(issues({ template, routing: { targets: [targets[0], targets[0]] } })).toEqual(['routing.targets.1: repeats an earlier target']);
    expect(issues({ template, routing: { targets, fallbackOn: ['bad_request'] } })[0]).toMatch(/^routing\.fallbackOn\.0: /);
    expect(issues({ template, routing: { targets: [] } })[0]).toMatch(/^routing\.targets: /);
    expect(issues({ template, routing: { targets: [{ ...targets[0], parameters: { temperature: 1 } }, targets[1]] } })).toEqual([
      "routing.targets.0.parameters: the first target is the version's own provider and model: put its settings in the version's parameters",
    ]);
  });

  it('an embedding entry takes no routing block and no cache', () => {
    const r = prepareVersionContent({ model: 'embed', routing: { targets }, cache: { ttlSeconds: 5 } }, 'embedding');
    expect(r.ok ? [] : r.issues.map((issue) => formatIssue(issue))).toEqual([
      'routing: an embedding entry has no routing',
      'cache: an embedding entry has no cache',
    ]);
  });
});
