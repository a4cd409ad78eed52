import type { LineCounter, YAMLError } from 'yaml';

/**
 * A YAML syntax error in plain words, at the line where the mistake is (the parser often reports the
 * line before it, or the end of the file for a quote never closed). Written `(line N, column C): ...`.
 */
export function describeYamlError(error: YAMLError, text: string, lineCounter: LineCounter): string {
  const lines = text.split('\n');
  const at = lineCounter.linePos(error.pos[0]);
  const where = (line: number, col?: number) => `(line ${line}${col ? `, column ${col}` : ''})`;
  const indent = (line: number) => /^ */.exec(lines[line - 1] ?? '')![0].length;
  const nextDeeper = at.line < lines.length && lines[at.line]?.trim() !== '' && indent(at.line + 1) > indent(at.line);

  switch (error.code) {
    case 'TAB_AS_INDENT':
      return `${where(at.line)}: indented with a tab; YAML indents with spaces only`;
    case 'DUPLICATE_KEY': {
      const key = /^\s*-?\s*([^:]+):/.exec(lines[at.line - 1] ?? '')?.[1]?.trim();
      return `${where(at.line)}: the key ${key ? `"${key}" ` : ''}appears twice in the same block; keep one`;
    }
    case 'BLOCK_AS_IMPLICIT_KEY':
    case 'MULTILINE_IMPLICIT_KEY':
      if (nextDeeper)
        return `${where(at.line + 1)}: indented deeper than line ${at.line}, whose key already has a value; align it with the keys above`;
      if (error.code === 'BLOCK_AS_IMPLICIT_KEY') return `${where(at.line, at.col)}: a value contains ": "; put the whole value in quotes`;
      return `${where(at.line)}: expected "key: value" (a colon and a space after the key)`;
    case 'BLOCK_IN_FLOW':
      return `${where(at.line, at.col)}: a value inside { } or [ ] contains ": "; put that value in quotes`;
    case 'BAD_INDENT':
    case 'MISSING_CHAR': {
      if (/quote/i.test(error.message)) {
        const opened = findUnclosedQuote(lines, at.line);
        return `${where(opened ?? at.line)}: a quoted value is never closed; add the closing quote`;
      }
      if (/flow|\}|\]/i.test(error.message)) {
        const opened = findUnclosedFlow(lines, at.line);
        return `${where(opened ?? at.line)}: a { or [ opened here is not closed on its line; add the closing } or ]`;
      }
      if (/without - indicator/.test(error.message))
        return `${where(at.line)}: not aligned with the keys of the list item above; indent it like them`;
      break;
    }
  }
  return `${where(at.line, at.col)}: ${error.message.split('\n')[0]}`;
}

/** The last line before `line` with an odd number of unescaped double (or single) quotes. */
function findUnclosedQuote(lines: string[], line: number): number | undefined {
  for (let i = Math.min(line, lines.length) - 1; i >= 0; i--) {
    const text = lines[i].replace(/\\"/g, '').replace(/#.*$/, '');
    if ((text.match(/"/g) ?? []).length % 2 === 1 || (text.match(/'/g) ?? []).length % 2 === 1) return i + 1;
  }
  return undefined;
}

function findUnclosedFlow(lines: string[], line: number): number | undefined {
  for (let i = Math.min(line, lines.length) - 1; i >= 0; i--) {
    const text = lines[i];
    const opens = (text.match(/[{[]/g) ?? []).length;
    const closes = (text.match(/[}\]]/g) ?? []).length;
    if (opens > closes) return i + 1;
  }
  return undefined;
}
