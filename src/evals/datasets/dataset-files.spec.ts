import { parseItemsFile } from './dataset-files';

describe('dataset files', () => {
  it('reads JSON Lines, one item per line, skipping blank lines', () => {
    const content =
      '{"variables":{"city":"Oslo"},"expected":"Norway"}\n\n{"messages":[{"role":"user","content":"hi"}],"metadata":{"tag":"a"}}\n';
    const { items, problems } = parseItemsFile('jsonl', content);
    expect(problems).toEqual([]);
    expect(items).toEqual([
      { variables: { city: 'Oslo' }, messages: [], expected: 'Norway', metadata: {} },
      { variables: {}, messages: [{ role: 'user', content: 'hi' }], metadata: { tag: 'a' } },
    ]);
  });

  it('names the line of every problem', () => {
    const { problems } = parseItemsFile('jsonl', '{"variabls":{}}\nnot json\n{"variables":{"ok":"1"}}\n');
    expect(problems[0]).toMatch(/^line 1: /);
    expect(problems[1]).toBe('line 2: not a JSON object');
    expect(problems).toHaveLength(2);
  });

  it('reads CSV: expected, messages as JSON, metadata.<key>, and every other column a variable', () => {
    const content =
      'city,expected,metadata.source,messages\nOslo,Norway,atlas,"[{""role"":""user"",""content"":""where?""}]"\n"Rome, Italy",,,\n';
    const { items, problems } = parseItemsFile('csv', content);
    expect(problems).toEqual([]);
    expect(items).toEqual([
      { variables: { city: 'Oslo' }, messages: [{ role: 'user', content: 'where?' }], expected: 'Norway', metadata: { source: 'atlas' } },
      { variables: { city: 'Rome, Italy' }, messages: [], metadata: { source: '' } },
    ]);
  });

  it('reports a CSV whose rows do not match its header', () => {
    const { items, problems } = parseItemsFile('csv', 'a,b\n1,2,3\n');
    expect(items).toEqual([]);
    expect(problems[0]).toMatch(/^CSV: /);
  });
});
