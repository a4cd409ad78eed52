import { scimError } from '../common/errors';
import { ENTERPRISE_USER_SCHEMA, GROUP_SCHEMA, USER_SCHEMA } from './scim-schemas';

/**
 * The part of RFC 7644's filter and PATCH path grammar (§3.4.2.2, §3.5.2) this surface takes
 * (docs/security.md, "SCIM"): `attr eq "value"` comparisons joined by `and`, and value filters in
 * brackets (`emails[type eq "work" and value eq "a@b.c"]`, `members[value eq "id"]`). Attribute
 * names are case-insensitive and may carry their schema's URN. Anything else (`or`, `not`,
 * parentheses, `co`, `sw`, `pr`, ...) is refused, never half-understood.
 */

/** Longer filters and paths are refused: none a directory sends comes near. */
const MAX_TEXT = 1000;
/** Comparisons in one filter, at most. */
const MAX_CONDITIONS = 10;

/** One `eq` comparison; conditions of one bracket share a `group` (they must hold for the same value of a multi-valued attribute). */
export interface Condition {
  /** Lowercased, without a core schema's URN: `username`, `emails.value`, `members.value`. */
  attribute: string;
  value: string | boolean | null;
  group: number;
}

/** A PATCH operation's target: `attribute` (maybe `name.givenname`), a value filter, and a sub-attribute after it. */
export interface PatchPath {
  /** Lowercased; `urn:...:enterprise:2.0:user:<attr>` stays prefixed (an extension attribute). */
  attribute: string;
  /** The bracket's conditions, their attributes relative to `attribute` (`type`, `value`). */
  filter: Condition[] | null;
  /** `value` in `emails[type eq "work"].value`. */
  subAttribute: string | null;
}

type Token = { kind: 'word'; text: string } | { kind: 'string'; text: string } | { kind: '[' | ']' | '(' | ')' };

const WORD = /[A-Za-z0-9$._:-]+/y;
const STRING = /"(?:[^"\\\u0000-\u001f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"/y;

function tokens(text: string, fail: (detail: string) => Error): Token[] {
  if (text.length > MAX_TEXT) throw fail(`longer than ${MAX_TEXT} characters`);
  const out: Token[] = [];
  let at = 0;
  while (at < text.length) {
    const char = text[at];
    if (char === ' ' || char === '\t') {
      at++;
    } else if (char === '[' || char === ']' || char === '(' || char === ')') {
      out.push({ kind: char });
      at++;
    } else if (char === '"') {
      STRING.lastIndex = at;
      const match = STRING.exec(text);
      if (!match) throw fail('a string is not closed or holds a bad escape');
      out.push({ kind: 'string', text: JSON.parse(match[0]) as string });
      at += match[0].length;
    } else {
      WORD.lastIndex = at;
      const match = WORD.exec(text);
      if (!match) throw fail(`unexpected character ${JSON.stringify(char)}`);
      out.push({ kind: 'word', text: match[0] });
      at += match[0].length;
    }
  }
  return out;
}

const CORE_PREFIXES = [USER_SCHEMA, GROUP_SCHEMA].map((urn) => `${urn.toLowerCase()}:`);
const EXTENSION_PREFIX = `${ENTERPRISE_USER_SCHEMA.toLowerCase()}:`;
const ATTRIBUTE = /^[a-z$][a-z0-9$_-]*(\.[a-z$][a-z0-9$_-]*)?$/;

/** An attribute path, lowercased, a core schema's URN taken off; null when it is none. */
export function attributeName(text: string): string | null {
  let name = text.toLowerCase();
  const core = CORE_PREFIXES.find((prefix) => name.startsWith(prefix));
  if (core) name = name.slice(core.length);
  else if (name === ENTERPRISE_USER_SCHEMA.toLowerCase()) return name;
  else if (name.startsWith(EXTENSION_PREFIX)) return ATTRIBUTE.test(name.slice(EXTENSION_PREFIX.length)) ? name : null;
  return ATTRIBUTE.test(name) ? name : null;
}

/** Reads tokens from the front; every refusal goes through `fail`. */
class Reader {
  private at = 0;
  private groups = 0;

  constructor(
    private readonly items: Token[],
    private readonly fail: (detail: string) => Error,
  ) {}

  done(): boolean {
    return this.at >= this.items.length;
  }

  peek(): Token | undefined {
    return this.items[this.at];
  }

  next(expected: string): Token {
    const token = this.items[this.at++];
    if (!token) throw this.fail(`ends where ${expected} was expected`);
    return token;
  }

  isWord(text: string): boolean {
    const token = this.peek();
    return token?.kind === 'word' && token.text.toLowerCase() === text;
  }

  attribute(): string {
    const token = this.next('an attribute');
    const name = token.kind === 'word' ? attributeName(token.text) : null;
    if (!name) throw this.fail(`${describe(token)} is not an attribute`);
    return name;
  }

  /** `attr eq value` (the attribute already read), pushed onto `into`. */
  comparison(attribute: string, group: number, into: Condition[]): void {
    const op = this.next('an operator');
    if (op.kind !== 'word') throw this.fail(`${describe(op)} is not an operator`);
    if (op.text.toLowerCase() !== 'eq') throw this.fail(`the operator "${op.text}" is not supported (only eq)`);
    const value = this.next('a value');
    if (value.kind === 'string') into.push({ attribute, value: value.text, group });
    else if (value.kind === 'word' && /^(true|false|null)$/i.test(value.text)) {
      const word = value.text.toLowerCase();
      into.push({ attribute, value: word === 'null' ? null : word === 'true', group });
    } else throw this.fail(`${describe(value)} is not a value (a "string", true, false or null)`);
    if (into.length > MAX_CONDITIONS) throw this.fail(`more than ${MAX_CONDITIONS} comparisons`);
  }

  /** `[a eq "x" and b eq "y"]`, the opening bracket already read; attributes relative to the bracket's. */
  bracket(into: Condition[], prefix: string): void {
    const group = ++this.groups;
    for (;;) {
      const sub = this.attribute();
      if (sub.includes('.') || sub.includes(':')) throw this.fail(`"${sub}" in brackets must be a sub-attribute`);
      this.comparison(prefix + sub, group, into);
      const token = this.next('"]" or "and"');
      if (token.kind === ']') return;
      if (token.kind !== 'word' || token.text.toLowerCase() !== 'and') throw this.refuseLogic(token);
    }
  }

  /** The way a filter asks for more than this surface takes, named. */
  refuseLogic(token: Token): Error {
    if (token.kind === '(' || token.kind === ')') return this.fail('parentheses are not supported');
    if (token.kind === 'word' && /^(or|not)$/i.test(token.text)) return this.fail(`"${token.text}" is not supported (only and)`);
    return this.fail(`${describe(token)} was not expected`);
  }

  newGroup(): number {
    return ++this.groups;
  }
}

function describe(token: Token): string {
  if (token.kind === 'word' || token.kind === 'string') return JSON.stringify(token.text);
  return `"${token.kind}"`;
}

/** A `filter` query parameter (RFC 7644 §3.4.2.2): its comparisons, all of which must hold. */
export function parseFilter(text: string): Condition[] {
  const fail = (detail: string) => scimError(400, `Invalid filter: ${detail}`, 'invalidFilter');
  const reader = new Reader(tokens(text, fail), fail);
  const conditions: Condition[] = [];
  if (reader.done()) throw fail('it is empty');
  for (;;) {
    const first = reader.peek();
    if (first && first.kind !== 'word' && first.kind !== 'string') throw reader.refuseLogic(first);
    if (reader.isWord('not')) throw reader.refuseLogic(first!);
    const attribute = reader.attribute();
    if (reader.peek()?.kind === '[') {
      reader.next('"["');
      reader.bracket(conditions, `${attribute}.`);
    } else {
      reader.comparison(attribute, reader.newGroup(), conditions);
    }
    if (reader.done()) return conditions;
    const joiner = reader.next('"and"');
    if (joiner.kind !== 'word' || joiner.text.toLowerCase() !== 'and') throw reader.refuseLogic(joiner);
  }
}

/** A PATCH operation's `path` (RFC 7644 §3.5.2): `attr`, `attr.sub`, `attr[filter]` or `attr[filter].sub`. */
export function parsePatchPath(text: string): PatchPath {
  const fail = (detail: string) => scimError(400, `Invalid path ${JSON.stringify(text.slice(0, 100))}: ${detail}`, 'invalidPath');
  const reader = new Reader(tokens(text, fail), fail);
  const attribute = reader.attribute();
  let filter: Condition[] | null = null;
  let subAttribute: string | null = null;
  if (reader.peek()?.kind === '[') {
    if (attribute.includes('.')) throw fail('a value filter follows a multi-valued attribute, not a sub-attribute');
    reader.next('"["');
    filter = [];
    reader.bracket(filter, '');
    const rest = reader.peek();
    if (rest?.kind === 'word' && rest.text.startsWith('.')) {
      reader.next('a sub-attribute');
      subAttribute = attributeName(rest.text.slice(1));
      if (!subAttribute || subAttribute.includes('.')) throw fail(`"${rest.text}" is not a sub-attribute`);
    }
  }
  if (!reader.done()) throw fail(`${describe(reader.peek()!)} was not expected`);
  return { attribute, filter, subAttribute };
}

/** A comparison the resource's filters do not take: on an attribute they do not compare, or with a value of another type. */
export function unsupportedFilter(resource: string, attribute: string, supported: string | null, expected?: string): Error {
  const detail = supported
    ? `filtering ${resource} on "${attribute}" is not supported (${supported})`
    : `${attribute} compares with ${expected}`;
  return scimError(400, `Invalid filter: ${detail}`, 'invalidFilter');
}
