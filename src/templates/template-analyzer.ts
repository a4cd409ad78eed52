import Handlebars from 'handlebars';

import {
  BLOCK_ONLY_HELPERS,
  BLOCK_PARAMS_PROVIDED,
  CONTEXT_CHANGING_HELPERS,
  HELPER_ARITY,
  HELPER_NAMES,
  templateEnvironment,
} from './template-environment';

type Program = hbs.AST.Program;
type PathExpression = hbs.AST.PathExpression;
type BlockStatement = hbs.AST.BlockStatement;

/** A mustache, block opening or sub-expression: something with a head and arguments. */
interface Invocation extends hbs.AST.Node {
  path: PathExpression | hbs.AST.Literal;
  params: hbs.AST.Expression[];
  hash?: hbs.AST.Hash;
}

/** A program (block body) being walked: does it run with a new context, and which names it binds. */
interface Scope {
  changesContext: boolean;
  blockParams: readonly string[];
}

/** Same test as Handlebars' `AST.helpers.scopedId`: `this.x` and `./x` never name a helper or block param. */
function isScoped(path: PathExpression): boolean {
  return /^\.|this\b/.test(path.original);
}

/** Handlebars' `simpleId` (which, like Handlebars, lets `{{@json}}` call the `json` helper). */
function isSimpleId(path: PathExpression): boolean {
  return path.parts.length === 1 && !isScoped(path) && !path.depth;
}

/** Handlebars reads a literal in head position (`{{"first name"}}`) as a path of that name. */
function headPath(head: PathExpression | hbs.AST.Literal): PathExpression {
  if (head.type === 'PathExpression') return head as PathExpression;
  const name = String((head as { original?: unknown }).original);
  return { type: 'PathExpression', data: false, depth: 0, parts: [name], original: name, loc: head.loc };
}

/** `{{{{name}}}}…{{{{/name}}}}` parses to a block whose strip flags are left empty. */
function isRawBlock(block: BlockStatement): boolean {
  return block.openStrip !== undefined && !('open' in block.openStrip);
}

function fail(message: string, node: hbs.AST.Node): never {
  throw new Handlebars.Exception(message, node);
}

/**
 * Walks one parsed template, collecting the root variables it reads and rejecting what would fail
 * at render time (partials, unknown helpers, wrong argument counts), mirroring how Handlebars
 * resolves each name: helper, block parameter, data variable, block context or root context.
 */
class TemplateAnalyzer {
  private readonly variables = new Set<string>();
  private readonly scopes: Scope[] = [];

  analyze(program: Program): Set<string> {
    this.walkProgram(program, { changesContext: false, blockParams: [] });
    return this.variables;
  }

  private walkProgram(program: Program | undefined, scope: Scope): void {
    if (!program) return;
    this.scopes.push(scope);
    for (const statement of program.body) this.walkStatement(statement);
    this.scopes.pop();
  }

  private walkStatement(node: hbs.AST.Statement): void {
    switch (node.type) {
      case 'ContentStatement':
      case 'CommentStatement':
        return;
      case 'MustacheStatement':
        this.walkInvocation(node as hbs.AST.MustacheStatement, false);
        return;
      case 'BlockStatement':
        this.walkBlock(node as BlockStatement);
        return;
      case 'PartialStatement':
      case 'PartialBlockStatement':
        return fail('partials ({{> name}}) are not supported', node);
      case 'Decorator':
      case 'DecoratorBlock':
        return fail('decorators ({{* name}}) are not supported', node);
      default:
        fail(`unsupported template construct ${node.type}`, node);
    }
  }

  private walkBlock(block: BlockStatement): void {
    const helper = this.walkInvocation(block, true);
    const name = block.path.original;
    if (isRawBlock(block) && helper === null) {
      fail(`{{{{${name}}}}} is not a helper; write raw blocks as {{{{raw}}}}…{{{{/raw}}}}`, block);
    }
    const blockParams = block.program?.blockParams ?? [];
    const provided = helper === null ? 0 : (BLOCK_PARAMS_PROVIDED[helper] ?? 0);
    if (blockParams.length > provided) {
      const what = provided === 0 ? 'no block parameters' : `at most ${provided} block parameter(s)`;
      fail(`#${name} provides ${what} (as |${blockParams.join(' ')}|)`, block);
    }
    // A block whose head is a value rather than a helper renders its body with that value as context.
    const changesContext = helper === null || CONTEXT_CHANGING_HELPERS.has(helper);
    this.walkProgram(block.program, { changesContext, blockParams });
    // `{{else}}` bodies always run with the enclosing context.
    this.walkProgram(block.inverse, { changesContext: false, blockParams: block.inverse?.blockParams ?? [] });
  }

  /** Checks a head and its arguments; returns the helper it calls, or null when it reads a value. */
  private walkInvocation(node: Invocation, isBlock: boolean): string | null {
    const head = headPath(node.path);
    const argumentCount = node.params.length + (node.hash?.pairs.length ?? 0);
    const helper = this.helperNamed(head);
    const mustCallHelper = node.type === 'SubExpression' || argumentCount > 0;

    if (helper === null && mustCallHelper) fail(`"${head.original}" is not a helper`, node);
    if (helper !== null && !isBlock && BLOCK_ONLY_HELPERS.has(helper)) {
      fail(`"${helper}" only works as a block: {{#${helper} …}}…{{/${helper}}}`, node);
    }
    const arity = helper === null ? undefined : HELPER_ARITY[helper];
    if (arity && (node.params.length < arity[0] || node.params.length > arity[1])) {
      const [min, max] = arity;
      const expected = min === max ? `${min}` : max === Infinity ? `at least ${min}` : `${min} to ${max}`;
      // `{{default}}` alone is a helper call; say how to read a variable that shares a helper's name.
      const hint = node.params.length === 0 ? `; for a variable of that name write {{this.${helper}}}` : '';
      fail(`"${helper}" takes ${expected} argument(s), got ${node.params.length}${hint}`, node);
    }

    if (helper === null) this.readPath(head);
    for (const param of node.params) this.walkExpression(param);
    for (const pair of node.hash?.pairs ?? []) this.walkExpression(pair.value);
    return helper;
  }

  private walkExpression(node: hbs.AST.Expression): void {
    if (node.type === 'SubExpression') this.walkInvocation(node as hbs.AST.SubExpression, false);
    else if (node.type === 'PathExpression') this.readPath(node as PathExpression);
    // Literals (strings, numbers, booleans, null, undefined) read nothing.
  }

  /** The helper a head calls: a simple name that is registered and not shadowed by a block parameter. */
  private helperNamed(head: PathExpression): string | null {
    if (!isSimpleId(head)) return null;
    const name = head.parts[0];
    return HELPER_NAMES.has(name) && !this.isBlockParam(name) ? name : null;
  }

  private isBlockParam(name: string): boolean {
    return this.scopes.some((scope) => scope.blockParams.includes(name));
  }

  /** Records the root variable a path reads, if it reads the root context at all. */
  private readPath(path: PathExpression): void {
    if (path.data) {
      // @index, @key, @first, @last are loop data; only @root.x reaches a variable.
      if (path.parts[0] === 'root' && path.parts.length > 1) this.variables.add(path.parts[1]);
      return;
    }
    if (path.parts.length === 0) return; // `this` or `..` alone: a whole context, not a variable.
    if (!path.depth && !isScoped(path) && this.isBlockParam(path.parts[0])) return;
    // `../` climbs one context per enclosing context-changing block; only exactly all of them reach the root.
    const contextDepth = this.scopes.filter((scope) => scope.changesContext).length;
    if (path.depth === contextDepth) this.variables.add(path.parts[0]);
  }
}

/**
 * Parses one templated string and returns the variables it reads (unsorted). Throws a
 * Handlebars error (with a location where known) if it cannot be parsed or would fail to render.
 */
export function analyzeTemplateSource(source: string): Set<string> {
  return new TemplateAnalyzer().analyze(templateEnvironment.parse(source));
}
