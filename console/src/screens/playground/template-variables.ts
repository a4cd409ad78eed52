/**
 * The variables a template reads, found as the person types (docs/templates.md, "Variables"): the
 * root names of the paths it uses, `@root.x` inside blocks and the arguments of helpers; not helper
 * names, block parameters (`as |item|`), `@index` and the like, nor paths relative to an
 * `#each`/`#with` context. The server decides with Handlebars' own parser when the version is
 * saved; this reads the same tags without it, so the playground stays small, and a template that
 * does not compile still shows the variables it seems to use.
 */

/** Parley's helpers (docs/templates.md, "Helpers"). */
const HELPERS = new Set('if unless each with lookup eq ne lt gt lte gte and or not json default raw log'.split(' '));
/** Helpers whose body runs with a new context (the current item, the `with` value). */
const CONTEXT_CHANGING = new Set(['each', 'with']);

type Token = { kind: 'path'; text: string } | { kind: 'literal'; text: string } | { kind: 'open' | 'close' | 'pipe' | 'hash' };

interface Scope {
  changesContext: boolean;
  blockParams: string[];
}

/** The tokens of a tag's inside: paths, literals, parentheses, `|` and hash keys (`key=`). */
function tokenize(inside: string): Token[] {
  const tokens: Token[] = [];
  const pattern = /\s*(?:("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|(\()|(\))|(\|)|([^\s()|=]+)=|((?:\[[^\]]*\]|[^\s()|=[])+))/gy;
  let match: RegExpExecArray | null;
  while ((match = pattern.exec(inside)) && match[0] !== '') {
    const [, string, open, close, pipe, hashKey, word] = match;
    if (string !== undefined) tokens.push({ kind: 'literal', text: string.slice(1, -1) });
    else if (open) tokens.push({ kind: 'open' });
    else if (close) tokens.push({ kind: 'close' });
    else if (pipe) tokens.push({ kind: 'pipe' });
    else if (hashKey) tokens.push({ kind: 'hash' });
    else if (/^(-?\d+(\.\d+)?|true|false|null|undefined)$/.test(word)) tokens.push({ kind: 'literal', text: word });
    else tokens.push({ kind: 'path', text: word });
  }
  return tokens;
}

interface Path {
  data: boolean;
  depth: number;
  scoped: boolean;
  parts: string[];
}

function parsePath(text: string): Path {
  const data = text.startsWith('@');
  let rest = data ? text.slice(1) : text;
  let depth = 0;
  while (rest.startsWith('../')) {
    depth += 1;
    rest = rest.slice(3);
  }
  if (rest === '..') return { data, depth: depth + 1, scoped: false, parts: [] };
  const scoped = /^(\.\/|\.$|this([./]|$))/.test(rest);
  const parts = (rest.match(/\[[^\]]*\]|[^./[\]]+/g) ?? []).map((part) => (part.startsWith('[') ? part.slice(1, -1) : part));
  return { data, depth, scoped, parts: scoped && parts[0] === 'this' ? parts.slice(1) : parts };
}

class Reader {
  readonly variables = new Set<string>();
  private readonly scopes: Scope[] = [];

  private isBlockParam(name: string): boolean {
    return this.scopes.some((scope) => scope.blockParams.includes(name));
  }

  /** The helper a head token calls: a simple name that is a helper and not shadowed by a block parameter. */
  private helperOf(token: Token | undefined): string | null {
    if (token?.kind !== 'path') return null;
    const path = parsePath(token.text);
    const name = path.parts.length === 1 && !path.scoped && !path.depth ? path.parts[0] : null;
    return name && HELPERS.has(name) && !this.isBlockParam(name) ? name : null;
  }

  private read(token: Token): void {
    if (token.kind !== 'path' && token.kind !== 'literal') return;
    // A literal in head position (`{{"first name"}}`) is read as a path of that name.
    const path = token.kind === 'path' ? parsePath(token.text) : { data: false, depth: 0, scoped: false, parts: [token.text] };
    if (path.data) {
      if (path.parts[0] === 'root' && path.parts.length > 1) this.variables.add(path.parts[1]);
      return;
    }
    if (path.parts.length === 0) return;
    if (!path.depth && !path.scoped && this.isBlockParam(path.parts[0])) return;
    if (path.depth === this.scopes.filter((scope) => scope.changesContext).length) this.variables.add(path.parts[0]);
  }

  /** Reads the arguments of an invocation whose head is at `tokens[0]`; returns the helper it calls, or null. */
  private invocation(tokens: Token[]): string | null {
    const helper = this.helperOf(tokens[0]);
    if (!helper && tokens[0]?.kind === 'path') this.read(tokens[0]);
    else if (!helper && tokens[0]?.kind === 'literal' && tokens.length === 1) this.read(tokens[0]);
    for (let i = 1; i < tokens.length; i++) {
      const token = tokens[i];
      if (token.kind === 'open') {
        // A sub-expression: its own head and arguments, up to the matching parenthesis.
        let level = 1;
        let end = i + 1;
        for (; end < tokens.length && level > 0; end++) level += tokens[end].kind === 'open' ? 1 : tokens[end].kind === 'close' ? -1 : 0;
        this.invocation(tokens.slice(i + 1, end - 1));
        i = end - 1;
      } else if (token.kind === 'path') {
        this.read(token);
      }
    }
    return helper;
  }

  /** `{{#head args as |a b|}}` (or the same after `else`): reads it and opens its body's scope. */
  private openBlock(inside: string): void {
    const [expression, params] = splitBlockParams(inside);
    const helper = this.invocation(tokenize(expression));
    this.scopes.push({ changesContext: helper === null || CONTEXT_CHANGING.has(helper), blockParams: params });
  }

  tag(inside: string): void {
    const sigil = inside[0];
    if (sigil === '!' || sigil === '>' || sigil === '*') return;
    if (sigil === '#') return this.openBlock(inside.slice(1).trim());
    if (sigil === '/') {
      this.scopes.pop();
      return;
    }
    const elseChain = /^(?:else(?:\s+(.*))?|\^\s*)$/s.exec(inside);
    if (elseChain) {
      if (this.scopes.length === 0) return;
      // The inverse body runs in the enclosing context; `{{else if x}}` opens a block in it.
      this.scopes[this.scopes.length - 1] = { changesContext: false, blockParams: [] };
      if (!elseChain[1]?.trim()) return;
      this.scopes.pop();
      return this.openBlock(elseChain[1].trim());
    }
    if (sigil === '^') {
      // `{{^value}}`: its body runs when the value is empty, in the enclosing context.
      this.invocation(tokenize(inside.slice(1)));
      this.scopes.push({ changesContext: false, blockParams: [] });
      return;
    }
    this.invocation(tokenize(inside));
  }
}

function splitBlockParams(inside: string): [string, string[]] {
  const match = /^(.*?)\s+as\s+\|([^|]*)\|\s*$/s.exec(inside);
  return match ? [match[1], match[2].trim().split(/\s+/).filter(Boolean)] : [inside, []];
}

/** Calls `onTag` with the inside of every tag of `source` (whitespace control and braces taken off), skipping raw blocks and escaped tags. */
function eachTag(source: string, onTag: (inside: string) => void): void {
  let at = 0;
  while ((at = source.indexOf('{{', at)) >= 0) {
    if (source[at - 1] === '\\' && source[at - 2] !== '\\') {
      at = source.indexOf('}}', at) < 0 ? source.length : source.indexOf('}}', at) + 2;
      continue;
    }
    if (source.startsWith('{{{{', at)) {
      // A raw block: its body is text, up to {{{{/name}}}}.
      const end = source.indexOf('}}}}', at);
      if (end < 0) return;
      const name = source.slice(at + 4, end).trim();
      const close = source.indexOf(`{{{{/${name}}}}}`, end);
      at = close < 0 ? source.length : close + name.length + 9;
      continue;
    }
    const comment = source.startsWith('{{!--', at) || source.startsWith('{{~!--', at);
    const end = comment ? source.indexOf('--', source.indexOf('!--', at) + 3) : source.indexOf('}}', at);
    if (end < 0) return;
    const close = comment ? source.indexOf('}}', end) : end;
    let inside = source.slice(at + 2, close < 0 ? source.length : close);
    if (source[close + 2] === '}' && inside.startsWith('{')) inside = inside.slice(1);
    onTag(inside.replace(/^~/, '').replace(/~$/, '').trim());
    at = close < 0 ? source.length : close + (source[close + 2] === '}' ? 3 : 2);
  }
}

/** The variables `sources` (each a templated text) read, sorted. */
export function templateVariables(sources: readonly string[]): string[] {
  const names = new Set<string>();
  for (const source of sources) {
    const reader = new Reader();
    eachTag(source, (inside) => reader.tag(inside));
    reader.variables.forEach((name) => names.add(name));
  }
  return [...names].sort();
}
