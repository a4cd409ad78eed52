import { compileTemplate, TemplateCompileError, TemplateMessage } from './index';

/** Compiles and returns the error it must throw. */
function compileError(messages: TemplateMessage[]): TemplateCompileError {
  try {
    compileTemplate(messages);
  } catch (error) {
    expect(error).toBeInstanceOf(TemplateCompileError);
    return error as TemplateCompileError;
  }
  throw new Error('expected the template not to compile');
}

function compileErrorOf(content: string): TemplateCompileError {
  return compileError([{ role: 'user', content }]);
}

describe('TemplateCompileError', () => {
  it('reports the message index, line and column of a parse error', () => {
    const error = compileError([
      { role: 'system', content: 'fine' },
      { role: 'user', content: 'fine {{too}}' },
      { role: 'user', content: 'line one\nline two\n  {{#if x}}\n' },
    ]);
    expect(error.messageIndex).toBe(2);
    expect(error.partIndex).toBeNull();
    expect(error.line).toBe(4);
    expect(error.detail).toMatch(/^Parse error on line 4: Expecting .*got 'EOF'$/);
    expect(error.message).toBe(`template message 2: ${error.detail}`);
    expect(error.name).toBe('TemplateCompileError');
    expect(error).toBeInstanceOf(Error);
  });

  it('gives a 1-based column for an unterminated mustache', () => {
    const error = compileErrorOf('a\nb\n  {{foo');
    expect(error.line).toBe(3);
    expect(error.column).toBe(5);
    expect(error.detail).not.toContain('\n');
  });

  it('names the content part', () => {
    const error = compileError([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'ok {{a}}' },
          { type: 'image_url', image_url: { url: 'https://x/{{id' } },
        ],
      },
    ]);
    expect([error.messageIndex, error.partIndex, error.line]).toEqual([0, 1, 1]);
    expect(error.message).toMatch(/^template message 0, content part 1: Parse error on line 1/);
  });

  it('reports mismatched blocks where they open', () => {
    const error = compileErrorOf('x\n {{#if a}}\n{{/each}}');
    expect([error.line, error.column]).toEqual([2, 5]);
    expect(error.detail).toBe("if doesn't match each (line 2, column 5)");
  });

  it.each<[string, string, RegExp]>([
    ['partials', 'a {{> header}}', /^partials \(\{\{> name\}\}\) are not supported \(line 1, column 3\)$/],
    ['partial blocks', '{{#> layout}}x{{/layout}}', /^partials/],
    ['inline partials (decorators)', '{{#*inline "p"}}x{{/inline}}', /^decorators/],
    ['unknown helpers', 'Hi\n{{shout name}}', /^"shout" is not a helper \(line 2, column 1\)$/],
    ['unknown helpers in sub-expressions', '{{#if (shout a)}}{{/if}}', /^"shout" is not a helper/],
    ['calling a variable path', '{{user.name "x"}}', /^"user.name" is not a helper/],
    ['calling a block param', '{{#each items as |item|}}{{item 1}}{{/each}}', /^"item" is not a helper/],
    ['block helpers used inline', '{{if a}}', /^"if" only works as a block/],
    ['block helpers in sub-expressions', '{{eq (each a) 1}}', /^"each" only works as a block/],
    ['missing arguments', '{{#each}}x{{/each}}', /^"each" takes 1 argument\(s\), got 0/],
    ['too many arguments', '{{#if a b}}x{{/if}}', /^"if" takes 1 argument\(s\), got 2/],
    ['helper alone', '{{default}}', /^"default" takes at least 2 argument\(s\), got 0; for a variable .*\{\{this\.default\}\}/],
    ['block params on #if', '{{#if a as |b|}}{{b}}{{/if}}', /^#if provides no block parameters/],
    ['too many block params', '{{#with a as |b c|}}{{/with}}', /^#with provides at most 1 block parameter/],
    ['raw blocks not named raw', '{{{{verbatim}}}}{{x}}{{{{/verbatim}}}}', /write raw blocks as \{\{\{\{raw\}\}\}\}/],
    ['invalid paths', '{{a.this.b}}', /^Invalid path: a\.this/],
  ])('rejects %s', (_case, template, detail) => {
    expect(compileErrorOf(template).detail).toMatch(detail);
  });

  it('is thrown by compile, not deferred to render', () => {
    expect(() => compileTemplate([{ role: 'user', content: '{{#if x}}never closed' }])).toThrow(TemplateCompileError);
  });
});
