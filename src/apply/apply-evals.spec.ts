import type { ItemRow } from '../evals/datasets/datasets.repository';
import { diffItems, gateReferenceIssues, itemContent } from './apply-evals';
import { parseApplyText } from './apply-file.parser';
import { describeSummary } from './apply-summary';

const head = 'workspace: acme\nproject: support\n';

const row = (id: string, content: Partial<ItemRow>): ItemRow => ({
  id,
  since_version: 1,
  variables: {},
  messages: [],
  expected: null,
  metadata: {},
  source: null,
  created_at: new Date(),
  ...content,
});

describe('parley.yaml graders, datasets and gates', () => {
  it('parses the sections with their defaults', () => {
    const result = parseApplyText(`${head}
graders:
  - { name: exact, config: { type: equals } }
datasets:
  - name: cities
    items:
      - { variables: { city: Paris, count: 3 }, expected: Paris }
  - name: managed-elsewhere
gates:
  - { environment: production, dataset: cities, minScores: { exact: 0.9 } }
`);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.file.graders).toEqual([{ name: 'exact', config: { type: 'equals', ignoreCase: false } }]);
    expect(result.file.datasets).toEqual([
      { name: 'cities', items: [{ variables: { city: 'Paris', count: '3' }, messages: [], expected: 'Paris', metadata: {} }] },
      { name: 'managed-elsewhere' },
    ]);
    expect(result.file.gates).toEqual([{ environment: 'production', dataset: 'cities', minScores: { exact: 0.9 } }]);
    expect(result.file.references).toMatchObject({
      datasetNames: ['cities', 'managed-elsewhere'],
      gates: [{ index: 0, environment: 'production', dataset: 'cities' }],
    });
  });

  it('reports names listed twice, misspelt keys and checks that do not compile, each at its line', () => {
    const result = parseApplyText(`${head}graders:
  - { name: exact, config: { type: equals } }
  - { name: exact, config: { type: regex, pattern: "a(" } }
datasets:
  - { name: cities, itmes: [] }
gates:
  - { environment: production, dataset: cities, minScores: { exact: 2 } }
  - { environment: production, dataset: cities, minScores: { exact: 1 } }
`);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues).toEqual([
      'datasets[0] (line 7): Unrecognized key: "itmes"',
      'gates[0].minScores.exact (line 9): Too big: expected number to be <=1',
      expect.stringMatching(/^graders\[1\]\.config \(line 5\): .+/),
    ]);
    const duplicates = parseApplyText(`${head}graders:
  - { name: exact, config: { type: equals } }
  - { name: exact, config: { type: equals } }
datasets: [{ name: cities }, { name: cities }]
gates:
  - { environment: production, dataset: cities, minScores: { exact: 1 } }
  - { environment: production, dataset: cities, minScores: { exact: 1 } }
`);
    expect(duplicates.ok ? [] : duplicates.issues).toEqual([
      'graders[1].name (line 5): grader "exact" is already listed at graders[0].name',
      'datasets[1].name (line 6): dataset "cities" is already listed at datasets[0].name',
      'gates[1].environment (line 9): gate of environment "production" is already listed at gates[0].environment',
    ]);
  });

  it('compares items by content: key order, a null expected and ids do not matter; duplicates count', () => {
    const declared = [
      { variables: { b: '2', a: '1' }, messages: [], metadata: {} },
      { variables: {}, messages: [], expected: 'x', metadata: {} },
      { variables: {}, messages: [], expected: 'x', metadata: {} },
    ];
    const live = [row('i1', { variables: { a: '1', b: '2' }, expected: null }), row('i2', { expected: 'x' }), row('i3', { expected: 'y' })];
    expect(diffItems(live, declared, itemContent)).toEqual({ removed: ['i3'], added: [declared[2]] });
    expect(diffItems(live.slice(0, 2), declared.slice(0, 2), itemContent)).toEqual({ removed: [], added: [] });
  });

  it('reports gates naming environments or datasets that exist nowhere', () => {
    const result = parseApplyText(`${head}datasets: [{ name: cities }]
gates:
  - { environment: canary, dataset: cities, minScores: { exact: 1 } }
  - { environment: production, dataset: towns, minScores: { exact: 1 } }
`);
    if (!result.ok) throw new Error(result.issues.join('\n'));
    expect(gateReferenceIssues(result.file.references, new Set(['production']), new Set(['other']))).toEqual([
      'gates[0].environment (line 5): no environment "canary": list it under environments',
      'gates[1].dataset (line 6): no dataset "towns": declare it under datasets',
    ]);
  });

  it('lists what changed in the summary', () => {
    const unchanged = { slug: 'a', action: 'unchanged' as const };
    const text = describeSummary({
      workspace: unchanged,
      project: unchanged,
      environments: [],
      providers: [],
      prompts: [],
      deployments: [],
      graders: [
        { name: 'exact', action: 'created' },
        { name: 'polite', action: 'unchanged' },
      ],
      datasets: [{ name: 'cities', action: 'versioned', version: 3, itemCount: 4, added: 2, removed: 1 }],
      gates: [{ environment: 'production', dataset: 'cities', action: 'updated' }],
      changed: true,
    });
    expect(text).toBe(
      [
        'Applied to a/a:',
        '  + grader exact (created)',
        '  ~ dataset cities v3 (4 items: 2 added, 1 removed)',
        '  ~ gate of production: dataset cities (updated)',
      ].join('\n'),
    );
  });
});
