// A TOML syntax error as codex 0.171.0 words it (the Rust `toml` crate's parser): the problem
// smol-toml found, told in the reference's words and, where the two parsers point elsewhere, at
// the reference's position. Each rule below was probed against the reference; an error no rule
// knows keeps smol-toml's words and position.

/** A syntax error's 1-based position and words. */
export interface TomlSyntaxError {
  line: number;
  column: number;
  message: string;
}

const ESCAPES = 'missing escaped value, expected `b`, `e`, `f`, `n`, `r`, `\\`, `"`, `x`, `u`, `U`';
const EMPTY_KEY = 'unquoted keys cannot be empty, expected letters, numbers, `-`, `_`';
const UNQUOTED = 'string values must be quoted, expected literal string';

/** The reference's words for smol-toml's error `message` at `line:column` of `text`. */
export function referenceTomlError(text: string, line: number, column: number, message: string): TomlSyntaxError {
  const lines = text.split('\n');
  const here = (lines[line - 1] ?? '').replace(/\r$/, '');
  const rest = here.slice(column - 1);
  const same = (words: string): TomlSyntaxError => ({ line, column, message: words });
  switch (message) {
    case 'control characters are not allowed in strings': {
      // At the end of the line the string was never closed; elsewhere it holds a control character.
      const quote = openQuote(here.slice(0, column - 1));
      if (quote === '"') return same(rest === '' ? 'invalid basic string, expected `"`' : 'invalid basic string, expected non-double-quote visible characters, `\\`');
      if (quote === "'") return same(rest === '' ? "invalid literal string, expected `'`" : 'invalid literal string, expected non-single-quote visible characters');
      return same(message);
    }
    case 'unfinished string': {
      const opening = rest.slice(0, 3);
      if (opening !== '"""' && opening !== "'''") return same(message);
      const words = opening === '"""' ? 'invalid multi-line basic string, expected `"`' : "invalid multi-line literal string, expected `'`";
      return { ...endOfText(lines), message: words };
    }
    case 'trying to redefine an already defined table or value': {
      const header = /^(\s*\[\[?\s*)(.*?)\s*\]/.exec(here);
      if (header === null) return same('duplicate key');
      // A table defined twice: at the header's last key.
      const keys = header[2]!;
      const last = keys.lastIndexOf('.') + 1;
      return { line, column: header[1]!.length + last + (keys.slice(last).length - keys.slice(last).trimStart().length) + 1, message: 'duplicate key' };
    }
    case 'illegal character in key':
      if (/^\s*\[/.test(here)) return rest === '' && !here.includes(']') ? same('unclosed table, expected `]`') : same(message);
      return here.includes('=') ? same(message) : same('key with no value, expected `=`');
    case 'unexpected end of key':
      return same(EMPTY_KEY);
    case 'unrecognised escape sequence':
      return same(ESCAPES);
    case 'invalid non-hex character in unicode escape':
      return same('too few unicode value digits, expected unicode hexadecimal value');
    case 'invalid value':
      return invalidValue(lines, line, column, rest, same);
    case 'expected comma or end of structure': {
      // An inline table may go on over lines (TOML 1.1): one that does without a comma lacks it.
      const open = unclosed(lines, line, column);
      if (open !== null) return open;
      return openBracket(lines.slice(0, line - 1).join('\n') + '\n' + here.slice(0, column - 1)) === '{' ? same('missing comma between key-value pairs, expected `,`') : same(message);
    }
    case 'unfinished numeric value': {
      const number = /^[+-]?\d[\d_]*\./.exec(rest);
      return number !== null && !/\d/.test(rest.charAt(number[0].length)) ? { line, column: column + number[0].length, message: 'invalid fraction, expected digits' } : same(message);
    }
    case 'each key-value declaration must be followed by an end-of-line': {
      const value = /^(\s*[^=]+=\s*)(\d{4}-\d{2}-\d{2})/.exec(here);
      return value !== null ? { line, column: value[1]!.length + 1, message: 'invalid datetime' } : same('unexpected key or value, expected newline, `#`');
    }
    default:
      return same(message);
  }
}

// An array or inline table the document ends in, never closed: the reference points just
// after its last item.
function unclosed(lines: readonly string[], line: number, column: number): TomlSyntaxError | null {
  const end = lastNonBlank(lines, line, column);
  if (end === null || lines.slice(line - 1).join('\n').slice(column - 1).trim() !== '') return null;
  const bracket = openBracket([...lines.slice(0, end.line - 1), lines[end.line - 1]!.slice(0, end.column - 1)].join('\n'));
  if (bracket === '{') return { ...end, message: 'unclosed inline table, expected `}`' };
  return bracket === '[' ? { ...end, message: 'unclosed array, expected `]`' } : null;
}

function invalidValue(lines: readonly string[], line: number, column: number, rest: string, same: (words: string) => TomlSyntaxError): TomlSyntaxError {
  const open = unclosed(lines, line, column);
  if (open !== null) return open;
  if (rest.trim() === '' || rest.startsWith('#')) return same(UNQUOTED);
  if (/^t[a-z]*\b/.test(rest)) return same('invalid boolean, expected `true`');
  if (/^f[a-z]*\b/.test(rest)) return same('invalid boolean, expected `false`');
  return same(bareWordWords(rest));
}

// A bare word is an unquoted string to the reference; anything else keeps smol-toml's words.
const bareWordWords = (rest: string): string => (/^[A-Za-z]/.test(rest) ? UNQUOTED : 'invalid value');

// The position just after the last character that is not blank, at or before `line:column`.
function lastNonBlank(lines: readonly string[], line: number, column: number): { line: number; column: number } | null {
  for (let i = Math.min(line, lines.length) - 1; i >= 0; i -= 1) {
    const upTo = (i === line - 1 ? lines[i]!.slice(0, column - 1) : lines[i]!).trimEnd();
    if (upTo !== '') return { line: i + 1, column: upTo.length + 1 };
  }
  return null;
}

// Where the reference puts the end of the document: past the last line's newline.
function endOfText(lines: readonly string[]): { line: number; column: number } {
  if (lines.length > 1 && lines.at(-1) === '') return { line: lines.length - 1, column: lines.at(-2)!.length + 2 };
  return { line: lines.length, column: lines.at(-1)!.length + 1 };
}

// The quote of the string still open at the end of `text` (one line), or null.
function openQuote(text: string): '"' | "'" | null {
  let open: '"' | "'" | null = null;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (open === null) {
      if (c === '#') return null;
      if (c === '"' || c === "'") open = c;
    } else if (open === '"' && c === '\\') i += 1;
    else if (c === open) open = null;
  }
  return open;
}

// The innermost bracket (`[` of an array, `{` of an inline table) still open at the end of
// `text`, strings and comments skipped; a table header's brackets close on their line.
function openBracket(text: string): '[' | '{' | null {
  const stack: string[] = [];
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (quote !== null) {
      if (quote === '"' && c === '\\') i += 1;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#') while (i + 1 < text.length && text[i + 1] !== '\n') i += 1;
    else if (c === '[' || c === '{') stack.push(c);
    else if (c === ']' || c === '}') stack.pop();
  }
  const top = stack.at(-1);
  return top === '[' || top === '{' ? top : null;
}
