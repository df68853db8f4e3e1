// Where in config.toml a configuration problem is, worded as codex 0.171.0's config/mcpServer/reload
// words it: `<line>:<column>: <message>`. A TOML syntax error has its parser's position; a bad
// `[mcp_servers.<name>]` table is placed at its header (the reference's conversion of the whole
// table failed), and a value of the wrong type or variant at the value (serde failed on that
// field). A problem that cannot be placed (an inline table, a `-c` override) keeps its key path.

/** `line:column: message` of a TOML syntax error (smol-toml's `TomlError`), 1-based. */
export function tomlSyntaxPosition(error: unknown): string {
  const { line, column, message } = error as { line?: number; column?: number; message: string };
  const first = message.split('\n')[0]!.replace(/^Invalid TOML document: /, '');
  return line === undefined || column === undefined ? ` ${first}` : `${line}:${column}: ${first}`;
}

// A problem inside one of the table's values (`env.<NAME>`) is placed at that value's key.
const SERVER_PROBLEM = /^mcp_servers\.([^.:]+)(?:\.([A-Za-z_]+)(?:\.[^:]+)?)?: ([\s\S]*)$/;
const FIELD_PROBLEM = /^(invalid type|invalid value|unknown variant)/;

/** `line:column: message` of a ConfigError's message about one server, or ` <message>` when it cannot be placed. */
export function serverProblemPosition(text: string | null, message: string): string {
  const found = SERVER_PROBLEM.exec(message);
  if (found === null || text === null) return ` ${message}`;
  const [, name, key, problem] = found as unknown as [string, string, string | undefined, string];
  const lines = text.split('\n');
  const header = lines.findIndex((line) => line.trim() === `[mcp_servers.${name}]`);
  if (header === -1) return ` ${message}`;
  if (key !== undefined && FIELD_PROBLEM.test(problem)) {
    for (let i = header + 1; i < lines.length && !lines[i]!.trimStart().startsWith('['); i += 1) {
      const assignment = new RegExp(`^\\s*${key}\\s*=\\s*`).exec(lines[i]!);
      if (assignment !== null) return `${i + 1}:${assignment[0].length + 1}: ${problem}`;
    }
  }
  return `${header + 1}:1: ${problem}`;
}
