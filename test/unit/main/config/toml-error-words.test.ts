// TOML syntax errors in the reference's words and positions (codex 0.171.0's config/mcpServer/reload,
// probed: test/interop/mcp-reload-toml-errors-interop.test.ts), from what smol-toml reports.
import { expect, test } from 'vitest';
import { parseToml } from '../../../../src/main/config/config-document.js';
import { serverProblemPosition, tomlSyntaxPosition } from '../../../../src/main/tools/mcp-config-error-position.js';
import { resolveMcpServers } from '../../../../src/main/tools/mcp/mcp-server-config.js';

function syntaxProblem(text: string): string {
  try {
    parseToml(text);
  } catch (error) {
    return tomlSyntaxPosition(text, error);
  }
  throw new Error('parsed');
}

function serverProblem(text: string): string {
  try {
    resolveMcpServers(parseToml(text));
  } catch (error) {
    return serverProblemPosition(text, (error as Error).message);
  }
  throw new Error('resolved');
}

test('each syntax error the reference was seen to report, at its position', () => {
  const cases: Array<[string, string]> = [
    ['[mcp_servers.a]\ncommand = "abc\n', '2:15: invalid basic string, expected `"`'],
    ["[mcp_servers.a]\ncommand = 'abc\n", "2:15: invalid literal string, expected `'`"],
    ['[mcp_servers.a]\ncommand = """abc\n', '2:18: invalid multi-line basic string, expected `"`'],
    ['[mcp_servers.a]\ncommand = "x"\ncommand = "y"\n', '3:1: duplicate key'],
    ['[mcp_servers.a]\n  command = "x"\n  command = "y"\n', '3:3: duplicate key'],
    ['[mcp_servers.a]\n[mcp_servers.a]\n', '2:14: duplicate key'],
    ['[mcp_servers.a]\ncommand "x"\n', '2:9: key with no value, expected `=`'],
    ['[mcp_servers.a\ncommand = "x"\n', '1:15: unclosed table, expected `]`'],
    ['[mcp_servers.a]\ncommand = "a\\qb"\n', '2:14: missing escaped value, expected `b`, `e`, `f`, `n`, `r`, `\\`, `"`, `x`, `u`, `U`'],
    ['[mcp_servers.a]\ncommand = "\\u00zz"\n', '2:16: too few unicode value digits, expected unicode hexadecimal value'],
    ['[mcp_servers.a]\ncommand = \n', '2:11: string values must be quoted, expected literal string'],
    ['[mcp_servers.a]\ncommand = abc\n', '2:11: string values must be quoted, expected literal string'],
    ['[mcp_servers.a]\nenabled = tru\n', '2:11: invalid boolean, expected `true`'],
    ['[mcp_servers.a]\nenabled = fals\n', '2:11: invalid boolean, expected `false`'],
    ['[mcp_servers.a]\nargs = ["x",\n', '2:13: unclosed array, expected `]`'],
    ['a = [1, 2', '1:10: unclosed array, expected `]`'],
    ['[mcp_servers.a]\nenv = { A = "b"\n', '2:16: unclosed inline table, expected `}`'],
    ['[mcp_servers.a]\nenv = { A = "b"\ncommand = "x"\n', '3:1: missing comma between key-value pairs, expected `,`'],
    ['a = "x\u0001y"\n', '1:7: invalid basic string, expected non-double-quote visible characters, `\\`'],
    ["a = 'x\u0001y'\n", '1:7: invalid literal string, expected non-single-quote visible characters'],
    ['[mcp_servers.a]\nstartup_timeout_sec = 1.\n', '2:25: invalid fraction, expected digits'],
    ['[mcp_servers.]\n', '1:14: unquoted keys cannot be empty, expected letters, numbers, `-`, `_`'],
    ['= 3\n', '1:1: unquoted keys cannot be empty, expected letters, numbers, `-`, `_`'],
    ['[mcp_servers.a]\ncommand = "x" y\n', '2:15: unexpected key or value, expected newline, `#`'],
    ['x = 1979-05-27T07:32:00Zz\n', '1:5: invalid datetime'],
  ];
  expect(cases.map(([text]) => syntaxProblem(text))).toEqual(cases.map(([, problem]) => problem));
});

test('an error no rule knows keeps the parser’s words and position', () => {
  // The reference says ``1:6: string values must be quoted, expected literal string``.
  expect(syntaxProblem('a = [1 2]\n')).toBe('1:8: expected comma or end of structure');
});

test('a server table’s type problem at the value, the item or the entry serde failed on', () => {
  const cases: Array<[string, string]> = [
    ['[mcp_servers]\nw = 3\n', '2:5: invalid type: integer `3`, expected struct RawMcpServerConfig'],
    ['[mcp_servers.a]\ncommand = 3\n', '2:11: invalid type: integer `3`, expected a string'],
    ['[mcp_servers.a]\ncommand = "x"\nargs = ["y", 1]\n', '3:14: invalid type: integer `1`, expected a string'],
    ['[mcp_servers.a]\ncommand = "x"\nenabled_tools = [\n  "a", # one\n  3,\n]\n', '5:3: invalid type: integer `3`, expected a string'],
    ['[mcp_servers.a]\ncommand = "x"\n[mcp_servers.a.env]\nA = "b"\nC = 1\n', '5:5: invalid type: integer `1`, expected a string'],
    ['[mcp_servers.a]\ncommand = "x"\nenv = { A = "b", C = 2 }\n', '3:22: invalid type: integer `2`, expected a string'],
    ['[mcp_servers.a]\ncommand = "x"\nenv = 3\n', '3:7: invalid type: integer `3`, expected a map'],
    ['[mcp_servers.z]\nargs = ["x"]\n', '1:1: invalid transport'],
    ['[[mcp_servers.a]]\ncommand = "x"\n', '1:1: invalid type: map, expected a string'],
  ];
  expect(cases.map(([text]) => serverProblem(text))).toEqual(cases.map(([, problem]) => problem));
});
