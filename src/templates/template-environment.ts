import Handlebars from 'handlebars';

/**
 * Parley's Handlebars environment, isolated from the global `Handlebars` so nothing else in the
 * process can add helpers or partials to it.
 *
 * Helpers, besides the built-in `if`, `unless`, `each`, `with` and `lookup`:
 * - `eq a b`, `ne a b` — equal / not equal.
 * - `lt a b`, `gt a b`, `lte a b`, `gte a b` — less / greater (or equal).
 *   Comparisons use numbers when both sides look like numbers (`"10"` and `9`), text otherwise;
 *   a missing value is the empty string (missing variables render as empty, so they compare so too).
 * - `and a b …` — true when every argument is truthy.
 * - `or a b …` — true when at least one argument is truthy.
 * - `not a` — true when `a` is falsy.
 *   Truthiness is `#if`'s: missing, `""`, `0`, `false`, `null` and `[]` are falsy (`"false"` is not).
 *   The comparison and logic helpers also work as blocks: `{{#eq tier "pro"}}…{{else}}…{{/eq}}`.
 * - `json value [indent]` — `JSON.stringify(value, null, indent)`; a missing value gives `null`,
 *   so `{"q": {{json question}} }` is valid JSON whatever the variable holds (mind the space:
 *   `}}}` would close a triple-stash).
 * - `default value fallback …` — the first argument that is neither missing nor `""`.
 * - `raw` (raw block only) — `{{{{raw}}}}{{not rendered}}{{{{/raw}}}}` outputs its body verbatim.
 * - `log` — accepted and ignored: the built-in one prints to the server log, and variable values
 *   must never reach it (requests may ask not to be recorded).
 */
export const templateEnvironment = Handlebars.create();

/** Compile options for every template: no HTML escaping (prompts are not HTML), missing values empty. */
export const TEMPLATE_COMPILE_OPTIONS: CompileOptions = {
  noEscape: true,
  strict: false,
  knownHelpersOnly: false,
};

/**
 * Render options: Handlebars already refuses inherited members (`{{constructor}}` renders empty);
 * saying so explicitly stops it printing a warning to the console for each new name refused.
 */
export const TEMPLATE_RUNTIME_OPTIONS: RuntimeOptions = {
  allowProtoPropertiesByDefault: false,
  allowProtoMethodsByDefault: false,
};

/** Helpers that run their body with a new context (the current item, the `with` value). */
export const CONTEXT_CHANGING_HELPERS: ReadonlySet<string> = new Set(['each', 'with']);

/** Helpers that call `options.fn`, which only exists in block form: `{{if x}}` throws at render. */
export const BLOCK_ONLY_HELPERS: ReadonlySet<string> = new Set(['if', 'unless', 'each', 'with', 'raw']);

/** How many block parameters (`as |a b|`) a block helper provides; others provide none. */
export const BLOCK_PARAMS_PROVIDED: Readonly<Record<string, number>> = { each: 2, with: 1 };

/** Argument counts (min, max) that helpers need; anything else fails or is meaningless at render. */
export const HELPER_ARITY: Readonly<Record<string, readonly [number, number]>> = {
  if: [1, 1],
  unless: [1, 1],
  each: [1, 1],
  with: [1, 1],
  lookup: [2, 2],
  eq: [2, 2],
  ne: [2, 2],
  lt: [2, 2],
  gt: [2, 2],
  lte: [2, 2],
  gte: [2, 2],
  and: [1, Infinity],
  or: [1, Infinity],
  not: [1, 1],
  json: [1, 2],
  default: [2, Infinity],
  raw: [0, 0],
  log: [0, Infinity],
};

/** Runtime hooks stored among the helpers; templates never call them by name. */
const HANDLEBARS_HOOKS = new Set(['helperMissing', 'blockHelperMissing']);

function isTruthy(value: unknown): boolean {
  return Array.isArray(value) ? value.length > 0 : Boolean(value);
}

function looksNumeric(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value);
  return typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value));
}

/** Orders two values: numerically when both look like numbers, as text otherwise. */
function compareValues(left: unknown, right: unknown): number {
  if (looksNumeric(left) && looksNumeric(right)) return Number(left) - Number(right);
  const leftText = String(left ?? '');
  const rightText = String(right ?? '');
  return leftText === rightText ? 0 : leftText < rightText ? -1 : 1;
}

/** A helper yielding a boolean inline, or choosing between the body and `{{else}}` as a block. */
function conditionHelper(test: (args: unknown[]) => boolean): Handlebars.HelperDelegate {
  return function (this: unknown, ...argsAndOptions: unknown[]) {
    const options = argsAndOptions.pop() as Handlebars.HelperOptions;
    const result = test(argsAndOptions);
    if (typeof options.fn !== 'function') return result;
    return result ? options.fn(this) : options.inverse(this);
  };
}

function jsonHelper(...argsAndOptions: unknown[]): string {
  const [value, indent] = argsAndOptions.slice(0, -1);
  const spaces = looksNumeric(indent) ? Number(indent) : undefined;
  return JSON.stringify(value === undefined ? null : value, null, spaces) ?? 'null';
}

function defaultHelper(...argsAndOptions: unknown[]): unknown {
  const values = argsAndOptions.slice(0, -1);
  return values.find((value) => value !== undefined && value !== null && value !== '') ?? '';
}

function rawHelper(this: unknown, options: Handlebars.HelperOptions): string {
  return options.fn(this);
}

templateEnvironment.registerHelper({
  eq: conditionHelper(([a, b]) => compareValues(a, b) === 0),
  ne: conditionHelper(([a, b]) => compareValues(a, b) !== 0),
  lt: conditionHelper(([a, b]) => compareValues(a, b) < 0),
  gt: conditionHelper(([a, b]) => compareValues(a, b) > 0),
  lte: conditionHelper(([a, b]) => compareValues(a, b) <= 0),
  gte: conditionHelper(([a, b]) => compareValues(a, b) >= 0),
  and: conditionHelper((args) => args.every(isTruthy)),
  or: conditionHelper((args) => args.some(isTruthy)),
  not: conditionHelper(([value]) => !isTruthy(value)),
  json: jsonHelper,
  default: defaultHelper,
  raw: rawHelper,
  log: () => '',
});

/** Names that, in helper position, call a helper rather than read a variable. */
export const HELPER_NAMES: ReadonlySet<string> = new Set(
  Object.keys(templateEnvironment.helpers).filter((name) => !HANDLEBARS_HOOKS.has(name)),
);
