import { describe, expect, test } from 'vitest';
import { parse } from 'smol-toml';
import { ConfigError, type ConfigDocument } from '../../../../../src/main/config/config-document.js';
import { resolveMcpServers, type McpServerConfig } from '../../../../../src/main/tools/mcp/mcp-server-config.js';
import { configOrError, fromOverrides } from '../../../../helpers/config-overrides.js';

function resolve(document: ConfigDocument): { config: McpServerConfig[] } | { error: string } {
  return configOrError(() => resolveMcpServers(document));
}

const toml = (text: string): ConfigDocument => parse(text, { integersAsBigInt: 'asNeeded' }) as ConfigDocument;

const defaults = {
  enabled: true,
  required: false,
  supportsParallelToolCalls: false,
  startupTimeoutMs: null,
  toolTimeoutMs: null,
  enabledTools: null,
  disabledTools: null,
  defaultToolsApprovalMode: null,
  tools: {},
};

describe('[mcp_servers.<name>]', () => {
  test('a stdio server with every key', () => {
    const document = toml(`
[mcp_servers.docs]
command = "node"
args = ["server.mjs"]
env = { A = "1" }
env_vars = ["HOME", { name = "TOKEN", source = "local" }]
cwd = "/srv"
enabled = false
required = true
startup_timeout_sec = 2.5
tool_timeout_sec = 90
enabled_tools = ["echo", "big"]
disabled_tools = ["big"]
default_tools_approval_mode = "prompt"
[mcp_servers.docs.tools.echo]
approval_mode = "approve"
`);
    expect(resolve(document)).toEqual({
      config: [
        {
          name: 'docs',
          transport: {
            kind: 'stdio',
            command: 'node',
            args: ['server.mjs'],
            env: { A: '1' },
            envVars: [
              { name: 'HOME', source: null },
              { name: 'TOKEN', source: 'local' },
            ],
            cwd: '/srv',
          },
          enabled: false,
          required: true,
          supportsParallelToolCalls: false,
          startupTimeoutMs: 2500,
          toolTimeoutMs: 90_000,
          enabledTools: ['echo', 'big'],
          disabledTools: ['big'],
          defaultToolsApprovalMode: 'prompt',
          tools: { echo: { approvalMode: 'approve' } },
        },
      ],
    });
  });

  test('a streamable HTTP server from -c overrides; startup_timeout_ms when no _sec', () => {
    const document = fromOverrides(
      'mcp_servers.web.url="http://127.0.0.1:9/mcp"',
      'mcp_servers.web.bearer_token_env_var="WEB_TOKEN"',
      'mcp_servers.web.http_headers={ "X-A" = "a" }',
      'mcp_servers.web.env_http_headers={ "X-B" = "B_VAR" }',
      'mcp_servers.web.startup_timeout_ms=1500',
    );
    expect(resolve(document)).toEqual({
      config: [
        {
          ...defaults,
          name: 'web',
          transport: {
            kind: 'streamableHttp',
            url: 'http://127.0.0.1:9/mcp',
            bearerTokenEnvVar: 'WEB_TOKEN',
            httpHeaders: { 'X-A': 'a' },
            envHttpHeaders: { 'X-B': 'B_VAR' },
          },
          startupTimeoutMs: 1500,
        },
      ],
    });
  });

  test('startup_timeout_sec wins over startup_timeout_ms', () => {
    const result = resolve(toml('[mcp_servers.a]\ncommand = "x"\nstartup_timeout_sec = 1\nstartup_timeout_ms = 5000\n'));
    expect(result).toEqual({ config: [{ ...defaults, name: 'a', transport: { kind: 'stdio', command: 'x', args: [], env: null, envVars: [], cwd: null }, startupTimeoutMs: 1000 }] });
  });

  test("the reference's transport errors name the server", () => {
    expect(resolve(toml('[mcp_servers.a]\ncommand = "x"\nurl = "http://h"\n'))).toEqual({ error: 'mcp_servers.a: url is not supported for stdio' });
    expect(resolve(toml('[mcp_servers.a]\ncommand = "x"\nbearer_token_env_var = "T"\n'))).toEqual({
      error: 'mcp_servers.a: bearer_token_env_var is not supported for stdio',
    });
    expect(resolve(toml('[mcp_servers.b]\nurl = "http://h"\nenv = { A = "1" }\n'))).toEqual({ error: 'mcp_servers.b: env is not supported for streamable_http' });
    expect(resolve(toml('[mcp_servers.b]\nurl = "http://h"\nbearer_token = "t"\n'))).toEqual({
      error: 'mcp_servers.b: bearer_token is not supported for streamable_http',
    });
    expect(resolve(toml('[mcp_servers.c]\nargs = ["x"]\n'))).toEqual({ error: 'mcp_servers.c: invalid transport' });
  });

  test('bad values name the server and the key', () => {
    expect(resolve(toml('[mcp_servers.a]\ncommand = 1\n'))).toEqual({ error: 'mcp_servers.a.command: invalid type: integer `1`, expected a string' });
    expect(resolve(toml('[mcp_servers.a]\ncommand = "x"\nenabled = "yes"\n'))).toEqual({
      error: 'mcp_servers.a.enabled: invalid type: string "yes", expected a boolean',
    });
    expect(resolve(toml('[mcp_servers.a]\ncommand = "x"\ntool_timeout_sec = -1\n'))).toEqual({
      error: 'mcp_servers.a.tool_timeout_sec: cannot convert float seconds to Duration: value is negative',
    });
    expect(resolve(toml('[mcp_servers.a]\ncommand = "x"\ndefault_tools_approval_mode = "always"\n'))).toEqual({
      error: 'mcp_servers.a.default_tools_approval_mode: unknown variant `always`, expected one of `auto`, `prompt`, `approve`',
    });
    // serde's words for a list and a map, and the item or entry that is wrong.
    expect(resolve(toml('[mcp_servers.a]\ncommand = "x"\nargs = "y"\n'))).toEqual({ error: 'mcp_servers.a.args: invalid type: string "y", expected a sequence' });
    expect(resolve(toml('[mcp_servers.a]\ncommand = "x"\nargs = ["y", 1]\n'))).toEqual({ error: 'mcp_servers.a.args[1]: invalid type: integer `1`, expected a string' });
    expect(resolve(toml('[mcp_servers.a]\ncommand = "x"\nenv = 3\n'))).toEqual({ error: 'mcp_servers.a.env: invalid type: integer `3`, expected a map' });
    expect(resolve(toml('[mcp_servers.a]\ncommand = "x"\nenv = { A = "b", C = 2 }\n'))).toEqual({ error: 'mcp_servers.a.env.C: invalid type: integer `2`, expected a string' });
    expect(resolve(toml('[mcp_servers.a]\ncommand = "x"\nenv_vars = [{ name = "T", source = "cloud" }]\n'))).toEqual({
      error: 'mcp_servers.a.env_vars[0]: unsupported env_vars source `cloud`; expected `local` or `remote`',
    });
    expect(resolve({ mcp_servers: { a: 'node' } })).toEqual({ error: 'mcp_servers.a: invalid type: string "node", expected struct RawMcpServerConfig' });
  });

  test('keys the reference does not know are ignored, as it ignores them', () => {
    const table = '[mcp_servers.a]\ncommand = "x"\ncommands = "y"\n[mcp_servers.a.tools.echo]\nmode = "auto"\napproval_mode = "approve"\n';
    expect(resolve(toml(table))).toEqual({
      config: [{ ...defaults, name: 'a', transport: { kind: 'stdio', command: 'x', args: [], env: null, envVars: [], cwd: null }, tools: { echo: { approvalMode: 'approve' } } }],
    });
  });

  // As codex 0.171.0 names them (probed through a thread's `config`).
  test('a list, a map and an entry of the wrong type are named as the reference names them', () => {
    expect([
      resolve({ mcp_servers: 3 }),
      resolve({ mcp_servers: { a: { command: 'x', args: 'a' } } }),
      resolve({ mcp_servers: { a: { command: 'x', args: ['a', 2] } } }),
      resolve({ mcp_servers: { a: { command: 'x', env: 'A' } } }),
      resolve({ mcp_servers: { a: { command: 'x', env: { A: 3 } } } }),
    ]).toEqual([
      { error: 'mcp_servers: invalid type: integer `3`, expected a map' },
      { error: 'mcp_servers.a.args: invalid type: string "a", expected a sequence' },
      { error: 'mcp_servers.a.args[1]: invalid type: integer `2`, expected a string' },
      { error: 'mcp_servers.a.env: invalid type: string "A", expected a map' },
      { error: 'mcp_servers.a.env.A: invalid type: integer `3`, expected a string' },
    ]);
  });

  test("a list's item is placed at the item but worded at the list, as the reference words it", () => {
    let thrown: unknown = null;
    try {
      resolveMcpServers({ mcp_servers: { a: { command: 'x', args: ['a', 2] } } });
    } catch (error) {
      thrown = error;
    }
    expect(thrown instanceof ConfigError ? { key: thrown.key, keyed: thrown.keyed } : thrown).toEqual({
      key: 'mcp_servers.a.args[1]',
      keyed: 'invalid type: integer `2`, expected a string\nin `mcp_servers.a.args`\n',
    });
  });

  test('no mcp_servers table is no servers', () => {
    expect(resolve({})).toEqual({ config: [] });
  });
});
