import Handlebars from 'handlebars';

/** Which templated string of a template an error is about. */
export interface TemplateStringLocation {
  /** Index of the message in the template (0-based, like `template.2` in request paths). */
  messageIndex: number;
  /** Index of the content part when `content` is an array, otherwise null. */
  partIndex: number | null;
}

/** A template that cannot be parsed, or uses a construct that would fail or misbehave at render time. */
export class TemplateCompileError extends Error {
  override readonly name = 'TemplateCompileError';

  constructor(
    readonly messageIndex: number,
    readonly partIndex: number | null,
    /** 1-based line within the templated string, when known. */
    readonly line: number | null,
    /** 1-based column within that line, when known. */
    readonly column: number | null,
    /** What is wrong, without the prefix: `Parse error on line 3: Expecting 'ID', got 'EOF'`. */
    readonly detail: string,
  ) {
    const part = partIndex === null ? '' : `, content part ${partIndex}`;
    super(`template message ${messageIndex}${part}: ${detail}`);
  }
}

/** The jison lexer Handlebars parses with; it keeps the position of the token it failed on. */
interface LexerState {
  yylloc?: { first_line?: number; first_column?: number };
}

/** Where the last failed parse stopped (0-based column), if the lexer agrees with the reported line. */
function lastParsePosition(line: number): number | null {
  const lexer = (Handlebars as unknown as { Parser?: { lexer?: LexerState } }).Parser?.lexer;
  const loc = lexer?.yylloc;
  return loc?.first_line === line && typeof loc.first_column === 'number' ? loc.first_column : null;
}

/**
 * Jison parse errors read "Parse error on line 3:\n<excerpt>\n----^\nExpecting …": the excerpt and
 * its pointer only make sense in a monospace dump, so the detail keeps the first and last lines.
 */
function fromParseError(text: string): { line: number | null; column: number | null; detail: string } {
  const lines = text.split('\n');
  const lineMatch = /on line (\d+)/.exec(lines[0]);
  const line = lineMatch ? Number(lineMatch[1]) : null;
  const zeroBasedColumn = line === null ? null : lastParsePosition(line);
  const reason = lines.length > 1 && !/^-*\^$/.test(lines[lines.length - 1]) ? lines[lines.length - 1] : '';
  const summary = lines[0].replace(/[:.]\s*$/, '');
  return {
    line,
    column: zeroBasedColumn === null ? null : zeroBasedColumn + 1,
    detail: reason ? `${summary}: ${reason}` : summary,
  };
}

/** Turns whatever parsing, checking or compiling threw into a `TemplateCompileError`. */
export function toTemplateCompileError(error: unknown, at: TemplateStringLocation): TemplateCompileError {
  if (error instanceof TemplateCompileError) return error;
  const text = error instanceof Error ? error.message : String(error);
  const located = error as { lineNumber?: unknown; column?: unknown };

  if (typeof located.lineNumber === 'number') {
    // Handlebars.Exception: 0-based column, and " - line:column" appended to the message.
    const line = located.lineNumber;
    const column = typeof located.column === 'number' ? located.column + 1 : null;
    const reason = text.replace(/ - \d+:\d+$/, '');
    const where = column === null ? `line ${line}` : `line ${line}, column ${column}`;
    return new TemplateCompileError(at.messageIndex, at.partIndex, line, column, `${reason} (${where})`);
  }
  if (/^(Parse|Lexical) error on line \d+/.test(text)) {
    const { line, column, detail } = fromParseError(text);
    return new TemplateCompileError(at.messageIndex, at.partIndex, line, column, detail);
  }
  return new TemplateCompileError(at.messageIndex, at.partIndex, null, null, text);
}
