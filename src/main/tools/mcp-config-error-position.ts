// Where in config.toml a configuration problem is, worded as codex 0.171.0's config/mcpServer/reload
// words it: `<line>:<column>: <message>`. A TOML syntax error has the reference parser's position
// and words where config/toml-error-words.ts knows them; a bad
// `[mcp_servers.<name>]` table is placed at its header (the reference's conversion of the whole
// table failed), and a value of the wrong type or variant at the value (serde failed on that
// field). A problem that cannot be placed (an inline table, a `-c` override) keeps its key path.
import { referenceTomlError } from '../config/toml-error-words.js';

/** `line:column: message` of a TOML syntax error in `text` (smol-toml's `TomlError`), 1-based, in the reference's words. */
export function tomlSyntaxPosition(text: string, error: unknown): string {
  const { line, column, message } = error as { line?: number; column?: number; message: string };
  const first = message.split('\n')[0]!.replace(/^Invalid TOML document: /, '');
  if (line === undefined || column === undefined) return ` ${first}`;
  const reference = referenceTomlError(text, line, column, first);
  return `${reference.line}:${reference.column}: ${reference.message}`;
}

// `mcp_servers.<name>[.<key>[[<item>] | .<entry>]]: <problem>`
const SERVER_PROBLEM = /^mcp_servers\.([^.:]+)(?:\.([A-Za-z_]+)(?:\[(\d+)\]|\.([^:\s]+))?)?: ([\s\S]*)$/;
const FIELD_PROBLEM = /^(invalid type|invalid value|unknown variant)/;

interface Place {
  line: number;
  column: number;
}

/** `line:column: message` of a ConfigError's message about one server, or ` <message>` when it cannot be placed. */
export function serverProblemPosition(text: string | null, message: string): string {
  const found = SERVER_PROBLEM.exec(message);
  if (found === null || text === null) return ` ${message}`;
  const [, name, key, item, entry, problem] = found as unknown as [string, string, string | undefined, string | undefined, string | undefined, string];
  const lines = text.split('\n');
  const header = Math.max(headerLine(lines, `mcp_servers.${name}`), headerLine(lines, `[mcp_servers.${name}]`));
  const placed = (place: Place | null) => (place === null ? null : `${place.line}:${place.column}: ${problem}`);
  if (header === -1) {
    // `name = <not a table>` under `[mcp_servers]`: serde failed on the value.
    const parent = headerLine(lines, 'mcp_servers');
    return (parent === -1 || key !== undefined ? null : placed(valueAt(lines, parent, name))) ?? ` ${message}`;
  }
  if (key === undefined || !FIELD_PROBLEM.test(problem)) return `${header + 1}:1: ${problem}`;
  if (entry !== undefined) {
    // A map's entry: under its own `[mcp_servers.<name>.<key>]` table, or in an inline table.
    const own = headerLine(lines, `mcp_servers.${name}.${key}`);
    if (own !== -1) return placed(valueAt(lines, own, entry)) ?? `${own + 1}:1: ${problem}`;
  }
  const value = valueAt(lines, header, key);
  if (value === null) return `${header + 1}:1: ${problem}`;
  if (item !== undefined) return placed(itemAt(lines, value, Number(item))) ?? placed(value)!;
  if (entry !== undefined) return placed(entryAt(lines, value, entry)) ?? placed(value)!;
  return placed(value)!;
}

function headerLine(lines: readonly string[], path: string): number {
  return lines.findIndex((line) => line.trim() === `[${path}]`);
}

// Where the value of `key` is, in the table whose header is at `header`; null when not there.
function valueAt(lines: readonly string[], header: number, key: string): Place | null {
  for (let i = header + 1; i < lines.length && !lines[i]!.trimStart().startsWith('['); i += 1) {
    const assignment = new RegExp(`^\\s*${escaped(key)}\\s*=\\s*`).exec(lines[i]!);
    if (assignment !== null) return { line: i + 1, column: assignment[0].length + 1 };
  }
  return null;
}

// Where item `index` of the array whose `[` is at `start` begins (strings and comments skipped).
function itemAt(lines: readonly string[], start: Place, index: number): Place | null {
  const text = lines.slice(start.line - 1).join('\n');
  if (text[start.column - 1] !== '[') return null;
  let depth = 0;
  let count = 0;
  let inItem = false;
  let quote: string | null = null;
  for (let i = start.column; i < text.length; i += 1) {
    const c = text[i]!;
    if (quote !== null) {
      if (quote === '"' && c === '\\') i += 1;
      else if (c === quote) quote = null;
      continue;
    }
    if (depth === 0) {
      if (c === ']') return null;
      if (c === ',') {
        count += 1;
        inItem = false;
        continue;
      }
      if (c === '#') {
        while (i + 1 < text.length && text[i + 1] !== '\n') i += 1;
        continue;
      }
      if (/\s/.test(c)) continue;
      if (!inItem && count === index) return placeOf(text, i, start.line);
      inItem = true;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '[' || c === '{') depth += 1;
    else if (c === ']' || c === '}') depth -= 1;
  }
  return null;
}

// Where the value of `entry` is in the inline table whose `{` is at `start`, on its line.
function entryAt(lines: readonly string[], start: Place, entry: string): Place | null {
  const line = lines[start.line - 1]!;
  const found = new RegExp(`[{,]\\s*${escaped(entry)}\\s*=\\s*`).exec(line.slice(start.column - 1));
  return found === null ? null : { line: start.line, column: start.column + found.index + found[0].length };
}

function placeOf(text: string, offset: number, firstLine: number): Place {
  const before = text.slice(0, offset).split('\n');
  return { line: firstLine + before.length - 1, column: before.at(-1)!.length + 1 };
}

const escaped = (key: string) => key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
