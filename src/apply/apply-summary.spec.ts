import { ApplySummary, describeSummary, hasChanges } from './apply-summary';

const base = (): ApplySummary => ({
  workspace: { slug: 'acme', action: 'unchanged' },
  project: { slug: 'support', action: 'unchanged' },
  environments: [],
  providers: [],
  prompts: [{ slug: 'summarize', kind: 'prompt', action: 'unchanged', version: 1 }],
  deployments: [],
  graders: [],
  datasets: [],
  gates: [],
  changed: false,
});

describe('an apply summary with --prune and --dry-run (docs/apply.md, "Pruning", "Dry run")', () => {
  it('counts what was archived, deleted or restored as a change, and what was kept as none', () => {
    const kept = {
      ...base(),
      pruned: { prompts: [{ slug: 'old', kind: 'prompt' as const, action: 'kept' as const, reason: 'deployed' }], environments: [] },
    };
    expect(hasChanges(kept)).toBe(false);
    expect(hasChanges({ ...kept, pruned: { prompts: [], environments: [{ slug: 'qa', action: 'deleted' }] } })).toBe(true);
    expect(
      hasChanges({ ...base(), prompts: [{ slug: 'summarize', kind: 'prompt', action: 'unchanged', version: 1, restored: true }] }),
    ).toBe(true);
  });

  it('says a dry run wrote nothing, lists what pruning would do, and why something is kept', () => {
    const summary: ApplySummary = {
      ...base(),
      prompts: [{ slug: 'summarize', kind: 'prompt', action: 'unchanged', version: 1, restored: true }],
      pruned: {
        prompts: [
          { slug: 'old-draft', kind: 'assistant', action: 'archived' },
          { slug: 'old-live', kind: 'prompt', action: 'kept', reason: '"old-live" is deployed in qa: undeploy it there first' },
        ],
        environments: [{ slug: 'scratch', action: 'deleted' }],
      },
      dryRun: true,
      changed: true,
    };
    expect(describeSummary(summary)).toBe(
      [
        'Dry run: nothing was written. Applying would change acme/support:',
        '  + prompt summarize restored (it was archived)',
        '  - assistant old-draft archived (not in the file)',
        '  - environment scratch deleted (not in the file)',
        '  ! old-live kept: "old-live" is deployed in qa: undeploy it there first',
      ].join('\n'),
    );
    expect(describeSummary({ ...base(), dryRun: true })).toBe('Dry run: nothing was written. acme/support already matches the file.');
    expect(
      describeSummary({
        ...base(),
        pruned: { prompts: [{ slug: 'x', kind: 'prompt', action: 'kept', reason: 'deployed in production' }], environments: [] },
      }),
    ).toBe(['No changes to acme/support:', '  ! x kept: deployed in production'].join('\n'));
  });
});
