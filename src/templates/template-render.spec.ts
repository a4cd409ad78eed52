import { compileTemplate, TemplateVariables } from './index';

function render(content: string, variables: TemplateVariables = {}): unknown {
  return compileTemplate([{ role: 'user', content }]).render(variables)[0].content;
}

describe('compileTemplate / render', () => {
  describe('values are data', () => {
    it('does not HTML-escape', () => {
      expect(render('<b>&amp; {{x}}', { x: '<i>"Tom" & \'Jerry\'</i>' })).toBe('<b>&amp; <i>"Tom" & \'Jerry\'</i>');
      expect(render('{{{x}}}', { x: '<&>' })).toBe('<&>');
    });

    it('never compiles a variable value', () => {
      expect(render('{{a}}', { a: '{{b}}', b: 'SECRET' })).toBe('{{b}}');
      expect(render('{{a}}', { a: '{{#each x}}{{/each}} {{> partial}} {{{{raw}}}}' })).toBe(
        '{{#each x}}{{/each}} {{> partial}} {{{{raw}}}}',
      );
    });

    it('renders missing variables as empty', () => {
      expect(render('[{{missing}}][{{missing.deep}}][{{{missing}}}]')).toBe('[][][]');
    });

    it('does not expose Object.prototype members as variables, and does not warn about them', () => {
      const consoleError = jest.spyOn(console, 'error').mockImplementation(() => undefined);
      try {
        expect(render('[{{constructor}}][{{toString}}][{{__proto__}}][{{hasOwnProperty}}]')).toBe('[][][][]');
        expect(consoleError).not.toHaveBeenCalled();
      } finally {
        consoleError.mockRestore();
      }
    });

    it('reads a variable that shares a helper name through this.', () => {
      expect(render('{{this.default}}', { default: 'D' })).toBe('D');
    });
  });

  describe('Handlebars features', () => {
    it('renders #if / else if / else', () => {
      const template = '{{#if a}}A{{else if b}}B{{else}}none{{/if}}';
      expect(render(template, { a: 'yes' })).toBe('A');
      expect(render(template, { b: 'yes' })).toBe('B');
      expect(render(template, { a: '', b: '' })).toBe('none');
    });

    it('renders #unless and inverted sections', () => {
      expect(render('{{#unless a}}no a{{/unless}}|{{^b}}no b{{/b}}', {})).toBe('no a|no b');
    });

    it('renders #with on a value and ../', () => {
      expect(render('{{#with name}}[{{this}}|{{../greeting}}]{{/with}}', { name: 'Ada', greeting: 'Hi' })).toBe('[Ada|Hi]');
    });

    it('renders a section on a plain value with that value as context', () => {
      expect(render('{{#nick}}aka {{this}}{{/nick}}{{^nick}}no nick{{/nick}}', { nick: 'Bo' })).toBe('aka Bo');
      expect(render('{{#nick}}aka {{this}}{{/nick}}{{^nick}}no nick{{/nick}}', {})).toBe('no nick');
    });

    it('renders @root and lookup', () => {
      expect(render('{{#with a}}{{@root.b}}{{/with}}|{{lookup this key}}', { a: 'x', b: 'B', key: 'b' })).toBe('B|B');
    });

    it('strips whitespace with ~', () => {
      expect(render('a   {{~x~}}   b\n{{~#if x}}  yes  {{~/if}}', { x: '-' })).toBe('a-b  yes');
    });

    it('drops comments and outputs raw blocks verbatim', () => {
      expect(render('{{!-- {{x}} --}}{{! note }}[{{{{raw}}}}{{x}} {{#if}}{{{{/raw}}}}]', { x: 'X' })).toBe('[{{x}} {{#if}}]');
    });

    it('renders a {{#raw}} block normally', () => {
      expect(render('{{#raw}}{{x}}{{/raw}}', { x: 'X' })).toBe('X');
    });
  });

  describe('helpers', () => {
    it.each<[string, TemplateVariables, string]>([
      ['{{eq a "x"}} {{eq a "y"}}', { a: 'x' }, 'true false'],
      ['{{ne a "x"}}', { a: 'y' }, 'true'],
      ['{{eq n 1}} {{eq n "1.0"}}', { n: '1' }, 'true true'],
      ['{{eq flag true}}', { flag: 'true' }, 'true'],
      ['{{eq missing ""}}', {}, 'true'],
      ['{{lt a b}} {{gt a b}}', { a: '9', b: '10' }, 'true false'],
      ['{{lt a b}}', { a: 'apple', b: 'banana' }, 'true'],
      ['{{lte a 2}} {{gte a 2}} {{lte a 1}}', { a: '2' }, 'true true false'],
      ['{{and a b}} {{and a missing}}', { a: 'x', b: 'y' }, 'true false'],
      ['{{or missing b}} {{or missing ""}}', { b: 'y' }, 'true false'],
      ['{{not a}} {{not missing}}', { a: 'x' }, 'false true'],
      ['{{#if (eq tier "pro")}}PRO{{else}}FREE{{/if}}', { tier: 'pro' }, 'PRO'],
      ['{{#if (and (gt age 17) (not banned))}}ok{{/if}}', { age: '18' }, 'ok'],
      ['{{#eq tier "pro"}}PRO {{name}}{{else}}FREE{{/eq}}', { tier: 'free', name: 'N' }, 'FREE'],
      ['{{#eq tier "pro"}}PRO {{name}}{{/eq}}', { tier: 'pro', name: 'N' }, 'PRO N'],
      ['{{#or a b}}some{{else}}none{{/or}}', {}, 'none'],
      ['{{default nick "friend"}} {{default name "friend"}}', { name: 'Ada' }, 'friend Ada'],
      ['{{default a b "last"}}', { a: '', b: '' }, 'last'],
      ['{{log secret}}done', { secret: 's3cret' }, 'done'],
    ])('%s with %j renders %j', (template, variables, expected) => {
      expect(render(template, variables)).toBe(expected);
    });

    it('json: quotes and escapes text, gives null for a missing value', () => {
      expect(render('{"q": {{json q}}, "m": {{json missing}} }', { q: 'say "hi"\n<b>' })).toBe('{"q": "say \\"hi\\"\\n<b>", "m": null }');
      expect(JSON.parse(render('{{json q}}', { q: 'a\\b"c' }) as string)).toBe('a\\b"c');
    });

    it('json: indents when asked', () => {
      expect(render('{{json this 2}}', { k: 'v' })).toBe('{\n  "k": "v"\n}');
      expect(render('{{json this}}', { k: 'v' })).toBe('{"k":"v"}');
    });

    it('does not print the log helper arguments to the console', () => {
      const spies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((method) =>
        jest.spyOn(console, method).mockImplementation(() => undefined),
      );
      try {
        render('{{log "leak" secret level="error"}}', { secret: 's3cret' });
        for (const spy of spies) expect(spy).not.toHaveBeenCalled();
      } finally {
        for (const spy of spies) spy.mockRestore();
      }
    });
  });

  describe('messages', () => {
    it('templates string content, text parts and image URLs and copies everything else', () => {
      const compiled = compileTemplate([
        { role: 'system', content: 'Be {{tone}}.', name: '{{tone}}' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look at {{thing}}:' },
            { type: 'image_url', image_url: { url: 'https://img.example/{{id}}.png', detail: 'low' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":"{{tone}}"}' } }],
        },
        { role: 'tool', content: 'result {{tone}}', tool_call_id: 'call_1' },
      ]);

      expect(compiled.variables).toEqual(['id', 'thing', 'tone']);
      expect(compiled.render({ tone: 'brief', thing: 'this', id: '42' })).toEqual([
        { role: 'system', content: 'Be brief.', name: '{{tone}}' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look at this:' },
            { type: 'image_url', image_url: { url: 'https://img.example/42.png', detail: 'low' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":"{{tone}}"}' } }],
        },
        { role: 'tool', content: 'result brief', tool_call_id: 'call_1' },
      ]);
    });

    it('returns fresh copies: neither the caller nor a render can change the compiled template', () => {
      const messages = [{ role: 'user', content: [{ type: 'text' as const, text: 'Hi {{name}}' }] }];
      const compiled = compileTemplate(messages);
      messages[0].content[0].text = 'changed';

      const first = compiled.render({ name: 'A' });
      (first[0].content as Array<{ text: string }>)[0].text = 'mutated';
      const second = compiled.render({ name: 'B' });

      expect(second).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Hi B' }] }]);
      expect(second).not.toBe(first);
    });

    it('renders the same compiled template many times with different values', () => {
      const compiled = compileTemplate([{ role: 'user', content: '{{#each items}}x{{/each}}{{n}}' }]);
      expect(['1', '2', '3'].map((n) => compiled.render({ n })[0].content)).toEqual(['1', '2', '3']);
    });
  });
});
