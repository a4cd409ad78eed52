import { parseApplyText } from './apply-file.parser';

const head = 'workspace: a\nproject: b\nprompts:\n';
const issuesOf = (text: string) => {
  const result = parseApplyText(text);
  return result.ok ? [] : result.issues;
};

describe('YAML syntax errors in plain words, at the line of the mistake', () => {
  it.each([
    [
      'a line indented under a value',
      `${head}  - slug: x\n    model: echo\n      template: []\n`,
      '(file) (line 6): indented deeper than line 5, whose key already has a value; align it with the keys above',
    ],
    [
      'a line indented less than its list item',
      `${head}  - slug: x\n    model: echo\n   template: []\n`,
      '(file) (line 6): not aligned with the keys of the list item above; indent it like them',
    ],
    ['a tab', `${head}\t- slug: x\n`, '(file) (line 4): indented with a tab; YAML indents with spaces only'],
    [
      'a quote never closed (reported where it opens, not at the end)',
      'workspace: a\nproject: "b\nprompts: []\n',
      '(file) (line 2): a quoted value is never closed; add the closing quote',
    ],
    [
      'a missing colon',
      'workspace: a\nproject b\nprompts: []\n',
      '(file) (line 2): expected "key: value" (a colon and a space after the key)',
    ],
    [
      'a key twice',
      'workspace: a\nworkspace: b\nproject: c\n',
      '(file) (line 2): the key "workspace" appears twice in the same block; keep one',
    ],
    [
      'a { never closed',
      `${head}  - { slug: x, model: echo\n  - slug: y\n`,
      '(file) (line 4): a { or [ opened here is not closed on its line; add the closing } or ]',
    ],
    [
      '": " inside a flow mapping',
      `${head}  - slug: x\n    template:\n      - { role: system, content: Note: be brief }\n`,
      '(file) (line 6, column 34): a value inside { } or [ ] contains ": "; put that value in quotes',
    ],
    [
      '": " inside a plain value',
      `${head}  - slug: x\n    description: Note: be brief\n`,
      '(file) (line 5, column 18): a value contains ": "; put the whole value in quotes',
    ],
  ])('%s', (_what, text, expected) => {
    expect(issuesOf(text)).toEqual([expected]);
  });
});
