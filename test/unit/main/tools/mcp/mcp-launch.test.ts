import { describe, expect, test } from 'vitest';
import { resolveLaunch } from '../../../../../src/main/tools/mcp/mcp-launch.js';
import { resolveMcpServer } from '../../../../../src/main/tools/mcp/mcp-server-config.js';

const stdio = (table: Record<string, unknown>, environment: NodeJS.ProcessEnv = {}) => resolveLaunch(resolveMcpServer('s', { command: 'node', ...table }), environment);

describe('a launch and its identity', () => {
  test('the environment is the defaults, then env_vars, then env', () => {
    const launch = stdio({ env_vars: ['EXTRA'], env: { HOME: '/override' } }, { HOME: '/home/u', PATH: '/bin', EXTRA: 'x', OTHER: 'no' });
    expect(launch.endpoint).toEqual({ kind: 'stdio', command: 'node', args: [], env: { HOME: '/override', PATH: '/bin', EXTRA: 'x' }, cwd: null });
    expect([launch.startupTimeoutMs, launch.toolTimeoutMs, launch.bearerToken]).toEqual([30_000, 300_000, false]);
  });

  test('the same launch written in another order is the same identity; another env value is not', () => {
    const a = stdio({ env: { A: '1', B: '2' } });
    const b = stdio({ env: { B: '2', A: '1' }, tool_timeout_sec: 5, enabled_tools: ['echo'] });
    const c = stdio({ env: { A: '1', B: '3' } });
    expect(a.identity).toBe(b.identity);
    expect(a.identity).not.toBe(c.identity);
    expect(a.identity).toMatch(/^[0-9a-f]{64}$/);
  });

  test('HTTP headers come from http_headers, env_http_headers (blank ones skipped) and the bearer token', () => {
    const launch = resolveLaunch(
      resolveMcpServer('w', { url: 'http://h/mcp', http_headers: { 'X-A': 'a' }, env_http_headers: { 'X-B': 'B', 'X-C': 'C' }, bearer_token_env_var: 'T' }),
      { B: 'b', C: '  ', T: 'tok' },
    );
    expect(launch.endpoint).toEqual({ kind: 'streamableHttp', url: 'http://h/mcp', headers: { 'X-A': 'a', 'X-B': 'b', Authorization: 'Bearer tok' } });
    expect(launch.bearerToken).toBe(true);
    expect(() => resolveLaunch(resolveMcpServer('w', { url: 'http://h/mcp', bearer_token_env_var: 'T' }), { T: ' ' })).toThrow(
      "Environment variable T for MCP server 'w' is empty",
    );
  });

  test('a remote env_vars source cannot run here', () => {
    expect(() => stdio({ env_vars: [{ name: 'R', source: 'remote' }] })).toThrow('env_vars entry `R` uses source `remote`, which requires remote MCP stdio');
  });
});
