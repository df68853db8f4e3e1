// Opt-in (`npm run test:interop`): config.toml files that do not parse, or whose server tables
// are wrong, reloaded one after another on codex-cli 0.171.0 and on thread-host, the answers
// compared one by one: the reference's words and positions for TOML syntax errors (the Rust
// `toml` crate's), then the server tables' type problems with no thread loaded and with one.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { referenceAndMock } from './reference-and-mock.js';
import { runOnBothSides, startSide, type Side } from './reload-sides.js';
import { mockModelConfig } from '../helpers/test-server.js';

const reference = referenceAndMock();

// Each file with the reference's `<line>:<column>: <problem>` (config.toml's first 13 lines are
// the mock model's).
const SYNTAX: Array<[string, string]> = [
  ['[mcp_servers.a]\ncommand = "abc\n', '15:15: invalid basic string, expected `"`'],
  ["[mcp_servers.a]\ncommand = 'abc\n", '15:15: invalid literal string, expected `\'`'],
  ['[mcp_servers.a]\ncommand = """abc\n', '15:18: invalid multi-line basic string, expected `"`'],
  ['[mcp_servers.a]\ncommand = "x"\ncommand = "y"\n', '16:1: duplicate key'],
  ['[mcp_servers.a]\n  command = "x"\n  command = "y"\n', '16:3: duplicate key'],
  ['[mcp_servers.a]\n[mcp_servers.a]\n', '15:14: duplicate key'],
  ['a = 1\na = 2\n', '15:1: duplicate key'],
  ['[mcp_servers.a]\ncommand "x"\n', '15:9: key with no value, expected `=`'],
  ['[mcp_servers.a\ncommand = "x"\n', '14:15: unclosed table, expected `]`'],
  ['[mcp_servers.a]\ncommand = "a\\qb"\n', '15:14: missing escaped value, expected `b`, `e`, `f`, `n`, `r`, `\\`, `"`, `x`, `u`, `U`'],
  ['[mcp_servers.a]\ncommand = "\\u00zz"\n', '15:16: too few unicode value digits, expected unicode hexadecimal value'],
  ['[mcp_servers.a]\ncommand = \n', '15:11: string values must be quoted, expected literal string'],
  ['[mcp_servers.a]\ncommand = abc\n', '15:11: string values must be quoted, expected literal string'],
  ['[mcp_servers.a]\nenabled = tru\n', '15:11: invalid boolean, expected `true`'],
  ['[mcp_servers.a]\nenabled = fals\n', '15:11: invalid boolean, expected `false`'],
  ['[mcp_servers.a]\nargs = ["x",\n', '15:13: unclosed array, expected `]`'],
  ['[mcp_servers.a]\nenv = { A = "b"\n', '15:16: unclosed inline table, expected `}`'],
  ['[mcp_servers.a]\nenv = { A = "b"\ncommand = "x"\n', '16:1: missing comma between key-value pairs, expected `,`'],
  ['a = [1, 2', '14:10: unclosed array, expected `]`'],
  ['a = "x\u0001y"\n', '14:7: invalid basic string, expected non-double-quote visible characters, `\\`'],
  ["a = 'x\u0001y'\n", '14:7: invalid literal string, expected non-single-quote visible characters'],
  ['[mcp_servers.a]\nstartup_timeout_sec = 1.\n', '15:25: invalid fraction, expected digits'],
  ['[mcp_servers.]\n', '14:14: unquoted keys cannot be empty, expected letters, numbers, `-`, `_`'],
  ['= 3\n', '14:1: unquoted keys cannot be empty, expected letters, numbers, `-`, `_`'],
  ['[mcp_servers.a]\ncommand = "x" y\n', '15:15: unexpected key or value, expected newline, `#`'],
  ['x = 1979-05-27T07:32:00Zz\n', '14:5: invalid datetime'],
];

// Type problems: answered `{}` while no thread is loaded, refused once one is.
const TYPES: Array<[string, string]> = [
  ['[mcp_servers]\nw = 3\n', '15:5: invalid type: integer `3`, expected struct RawMcpServerConfig'],
  ['[mcp_servers.a]\ncommand = 3\n', '15:11: invalid type: integer `3`, expected a string'],
  ['[mcp_servers.a]\ncommand = "x"\nargs = "x"\n', '16:8: invalid type: string "x", expected a sequence'],
  ['[mcp_servers.a]\ncommand = "x"\nenabled = "x"\n', '16:11: invalid type: string "x", expected a boolean'],
  ['[mcp_servers.a]\ncommand = "x"\nstartup_timeout_sec = "x"\n', '16:23: invalid type: string "x", expected f64'],
  ['[mcp_servers.a]\ncommand = "x"\nargs = ["y", 1]\n', '16:14: invalid type: integer `1`, expected a string'],
  ['[mcp_servers.a]\ncommand = "x"\nenabled_tools = [\n  "a", # one\n  3,\n]\n', '18:3: invalid type: integer `3`, expected a string'],
  ['[mcp_servers.a]\ncommand = "x"\n[mcp_servers.a.env]\nA = "b"\nC = 1\n', '18:5: invalid type: integer `1`, expected a string'],
  ['[mcp_servers.a]\ncommand = "x"\nenv = { A = "b", C = 2 }\n', '16:22: invalid type: integer `2`, expected a string'],
  ['[mcp_servers.a]\ncommand = "x"\nenv = 3\n', '16:7: invalid type: integer `3`, expected a map'],
  ['[[mcp_servers.a]]\ncommand = "x"\n', '14:1: invalid type: map, expected a string'],
];

async function runScript(side: Side, home: string): Promise<unknown> {
  const mock = reference.mock;
  const write = (body: string) => writeFileSync(join(home, 'config.toml'), `${mockModelConfig(mock.url)}\n${body}`);
  write('');
  const server = await startSide(side, home, reference.codex);
  const reload = async (body: string) => {
    write(body);
    const answer = await server.requestRaw('config/mcpServer/reload', {});
    return answer.error ?? answer.result;
  };
  try {
    const syntax: unknown[] = [];
    for (const [body] of SYNTAX) syntax.push(await reload(body));
    const unloaded: unknown[] = [];
    for (const [body] of TYPES) unloaded.push(await reload(body));
    const cleared = await reload('');
    await server.request('thread/start', {});
    const loaded: unknown[] = [];
    for (const [body] of TYPES) loaded.push(await reload(body));
    return { syntax, unloaded, cleared, loaded };
  } finally {
    expect(await server.close()).toBe(0);
  }
}

test('bad config.toml files: the same refusals on both', async () => {
  const runs = await runOnBothSides(runScript);
  expect(runs['thread-host']).toEqual(runs.codex);
  // What the reference answered, so two runs that both answered nothing cannot pass.
  const refused = (cases: Array<[string, string]>) => cases.map(([, problem]) => ({ code: -32603, message: `failed to refresh MCP servers: <home>/config.toml:${problem}` }));
  expect(runs.codex).toEqual({ syntax: refused(SYNTAX), unloaded: TYPES.map(() => ({})), cleared: {}, loaded: refused(TYPES) });
}, 120_000);
