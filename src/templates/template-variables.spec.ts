import { scanTemplateVariables, TemplateCompileError, TemplateMessage } from './index';

function scan(content: string): string[] {
  return scanTemplateVariables([{ role: 'user', content }]);
}

describe('scanTemplateVariables', () => {
  it.each<[string, string, string[]]>([
    ['plain text', 'Hello there', []],
    ['simple and nested paths (root name only)', '{{a}} {{a.b}} {{c.d.e}}', ['a', 'c']],
    ['sorted and de-duplicated', '{{zeta}} {{alpha}} {{zeta}} {{alpha.x}}', ['alpha', 'zeta']],
    ['#if / #unless conditions and bodies', '{{#if x}}{{y}}{{else}}{{z}}{{/if}}{{#unless u}}{{/unless}}', ['u', 'x', 'y', 'z']],
    ['#each: only the list, not item fields', '{{#each items}}{{name}} {{price.amount}}{{/each}}', ['items']],
    ['#with: only the value, not its fields', '{{#with user}}{{name}}{{/with}}', ['user']],
    ['this at the root reads nothing, this.x reads x', '{{this}} {{.}} {{this.x}} {{./y}}', ['x', 'y']],
    ['this inside #each', '{{#each tags}}{{this}}, {{/each}}', ['tags']],
    ['@index/@key/@first/@last are data', '{{#each items}}{{@index}}{{@key}}{{@first}}{{@last}}{{/each}}', ['items']],
    ['@root.x is the variable x', '{{#each items}}{{@root.currency}}{{/each}} {{@root}} {{@root.a.b}}', ['a', 'currency', 'items']],
    ['block params', '{{#each items as |item i|}}{{item.name}} #{{i}}{{/each}}', ['items']],
    ['#with block param', '{{#with user as |u|}}{{u.name}}{{/with}}', ['user']],
    ['block params are scoped to their block', '{{#each items as |item|}}{{/each}}{{item}}', ['item', 'items']],
    ['this.name is never a block param', '{{#each items as |name|}}{{this.name}}{{/each}}', ['items']],
    ['../ climbs out of #each', '{{#each items}}{{../outer}} {{../a.b}}{{/each}}', ['a', 'items', 'outer']],
    ['../ counts only context-changing blocks', '{{#each items}}{{#if ok}}{{../flag}}{{/if}}{{/each}}', ['flag', 'items']],
    ['nested #each with ../../', '{{#each a}}{{#each ../b}}{{../../c}} {{../d}} {{e}}{{/each}}{{/each}}', ['a', 'b', 'c']],
    ['../ beyond the root reads nothing', '{{../x}}', []],
    ['{{else}} of #each reads the enclosing context', '{{#each items}}{{x}}{{else}}{{empty}}{{/each}}', ['empty', 'items']],
    ['else-if chains', '{{#if a}}1{{else if b}}{{c}}{{else with d}}{{e}}{{else}}{{f}}{{/if}}', ['a', 'b', 'c', 'd', 'f']],
    ['section block on a plain value changes context', '{{#section}}{{this}} {{inner}}{{/section}}', ['section']],
    ['inverted section', '{{^missing}}{{shown}}{{/missing}}', ['missing', 'shown']],
    ['helpers are not variables, their arguments are', '{{eq y 1}} {{json data}} {{default nick "friend"}}', ['data', 'nick', 'y']],
    ['a helper name in argument position is a variable', '{{eq json not}}', ['json', 'not']],
    ['a helper name read through this. is a variable', '{{this.default}}', ['default']],
    ['a block param shadows a helper', '{{#each items as |json|}}{{json}}{{/each}}', ['items']],
    ['sub-expressions', '{{#if (eq a "x")}}{{else if (and (gt b 2) (not c))}}{{/if}}', ['a', 'b', 'c']],
    ['hash arguments', '{{json (lookup map key) indent=width}}', ['key', 'map', 'width']],
    ['built-in lookup', '{{lookup map key}}', ['key', 'map']],
    ['literals are not variables', '{{eq "a" 1}} {{eq true null}} {{or undefined false}}', []],
    ['a quoted or bracketed head is a path of that name', '{{"first name"}} {{[last name]}}', ['first name', 'last name']],
    ['comments', '{{! {{x}} }}{{!-- {{y}} --}}{{z}}', ['z']],
    ['raw blocks', '{{{{raw}}}} {{notvar}} {{#if also}}{{/if}} {{{{/raw}}}}', []],
    ['whitespace control', '{{~a~}} {{~#if b~}} {{~/if~}}', ['a', 'b']],
    ['triple-stash', '{{{html}}} {{~{trimmed}~}}', ['html', 'trimmed']],
    ['comparison helpers as blocks keep the context', '{{#eq tier "pro"}}{{perk}}{{else}}{{upsell}}{{/eq}}', ['perk', 'tier', 'upsell']],
    ['log is a helper', '{{log secret}}', ['secret']],
  ])('%s', (_case, template, expected) => {
    expect(scan(template)).toEqual(expected);
  });

  it('scans text parts and image URLs, and skips null content and other fields', () => {
    const messages: TemplateMessage[] = [
      { role: 'system', content: 'You are {{persona}}', name: '{{notTemplated}}' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Describe {{subject}}' },
          { type: 'image_url', image_url: { url: 'https://img.example/{{imageId}}.png', detail: '{{nope}}' } },
        ],
      },
      { role: 'assistant', content: null },
    ];
    expect(scanTemplateVariables(messages)).toEqual(['imageId', 'persona', 'subject']);
  });

  it('merges variables of all messages', () => {
    const messages = [
      { role: 'system', content: '{{b}} {{a}}' },
      { role: 'user', content: '{{a}} {{c}}' },
    ];
    expect(scanTemplateVariables(messages)).toEqual(['a', 'b', 'c']);
  });

  it('returns nothing for an empty template', () => {
    expect(scanTemplateVariables([])).toEqual([]);
  });

  it('rejects templates that do not compile, naming the message', () => {
    const messages = [
      { role: 'system', content: 'fine' },
      { role: 'user', content: 'Hello {{name' },
    ];
    expect(() => scanTemplateVariables(messages)).toThrow(TemplateCompileError);
    expect(() => scanTemplateVariables(messages)).toThrow(/^template message 1: Parse error on line 1/);
  });
});
