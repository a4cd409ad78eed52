import { compileTemplate, TemplateTooLargeError, TemplateVariables } from './index';

function bounded(content: string, variables: TemplateVariables, maxChars: number): unknown {
  return compileTemplate([{ role: 'user', content }]).render(variables, { maxChars })[0].content;
}

describe('render with a size bound', () => {
  it('renders as without a bound when the output fits', () => {
    expect(bounded('{{a}} and {{a}}', { a: 'xy' }, 100)).toBe('xy and xy');
    expect(bounded('{{#each this}}[{{this}}]{{/each}}', { a: '1', b: '2' }, 100)).toBe('[1][2]');
  });

  it('stops while rendering: a value repeated past the bound throws TemplateTooLargeError', () => {
    const big = 'x'.repeat(1000);
    const template = compileTemplate([{ role: 'user', content: Array.from({ length: 1000 }, () => '{{doc}}').join('') }]);
    let error: unknown;
    try {
      template.render({ doc: big }, { maxChars: 10_500 });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(TemplateTooLargeError);
    expect((error as TemplateTooLargeError).maxChars).toBe(10_500);
  });

  it('counts loops over the variables, reads in conditions, helpers, and the static text', () => {
    const values = { a: 'x'.repeat(60), b: 'y'.repeat(60) };
    expect(() => bounded('{{#each this}}{{#each ../this}}{{this}}{{/each}}{{/each}}', values, 200)).toThrow(TemplateTooLargeError);
    expect(() => bounded('{{#if a}}{{a}}{{/if}}', values, 100)).toThrow(TemplateTooLargeError);
    expect(() => bounded('{{json a}}{{json a}}', values, 100)).toThrow(TemplateTooLargeError);
    expect(() => bounded('s'.repeat(150), {}, 100)).toThrow(TemplateTooLargeError);
    expect(() => bounded('{{#if z}}{{else each this}}{{this}}{{this}}{{/if}}', values, 200)).toThrow(TemplateTooLargeError);
    expect(bounded('{{a}}', values, 60)).toBe(values.a);
  });

  it('without a bound nothing is metered', () => {
    expect(compileTemplate([{ role: 'user', content: '{{a}}{{a}}' }]).render({ a: 'x'.repeat(100) })[0].content).toHaveLength(200);
  });
});
