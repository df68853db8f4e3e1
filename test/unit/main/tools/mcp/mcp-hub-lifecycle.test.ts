import { afterEach, describe, expect, test } from 'vitest';
import type { McpHub, McpStartupEvent } from '../../../../../src/main/tools/mcp/mcp-hub.js';
import { resolveLaunch } from '../../../../../src/main/tools/mcp/mcp-launch.js';
import { resolveMcpServer } from '../../../../../src/main/tools/mcp/mcp-server-config.js';
import { waitUntil } from '../../../../../src/main/wait-until.js';
import type { FakeClock } from '../../../../helpers/fake-clock.js';
import { alive, hubScene, type FixtureDir, startHttpFixture, stdioLaunch } from '../../../../helpers/mcp-fixtures.js';

let dir: FixtureDir;
let hub: McpHub;
let clock: FakeClock;
let events: McpStartupEvent[];
const cleanups: (() => void)[] = [];

function setUp(): void {
  ({ dir, clock, events, hub } = hubScene());
}

afterEach(async () => {
  await hub.close();
  dir.remove();
  for (const cleanup of cleanups.splice(0)) cleanup();
});

const statuses = (): string[] => events.map((event) => (event.error === null ? event.status : `${event.status}: ${event.error}`));

describe('restarts', () => {
  test('a killed server restarts after 500 ms, then 1 s if it dies again at once', async () => {
    setUp();
    const lease = hub.lease('t1', stdioLaunch(dir));
    await hub.tools(lease);
    const firstPid = dir.starts()[0]![0];
    process.kill(firstPid, 'SIGKILL');
    await waitUntil(() => events.length === 3, 5_000);
    expect(statuses()).toEqual(['starting', 'ready', 'failed: Transport closed']);
    expect(hub.status()[0]?.runtimeStatus).toBe('failed');
    clock.advance(499);
    expect(events.length).toBe(3);
    clock.advance(1);
    expect(statuses().at(-1)).toBe('starting');
    await waitUntil(() => events.length === 5, 5_000);
    expect(statuses().at(-1)).toBe('ready');
    expect(dir.starts().length).toBe(2);

    process.kill(dir.starts()[1]![0], 'SIGKILL');
    await waitUntil(() => events.length === 6, 5_000);
    clock.advance(999);
    expect(events.length).toBe(6);
    // A call made while the server is down waits for the restart.
    const call = hub.callTool(lease, 'echo', { text: 'back' });
    clock.advance(1);
    expect((await call).content).toEqual([{ type: 'text', text: 'back' }]);
    expect(dir.starts().length).toBe(3);
  });

  test('a server that stayed up 30 s restarts after 500 ms again', async () => {
    setUp();
    const lease = hub.lease('t1', stdioLaunch(dir));
    await hub.tools(lease);
    process.kill(dir.starts()[0]![0], 'SIGKILL');
    await waitUntil(() => events.length === 3, 5_000);
    clock.advance(500);
    await waitUntil(() => events.length === 5, 5_000);
    clock.advance(30_000);
    process.kill(dir.starts()[1]![0], 'SIGKILL');
    await waitUntil(() => events.length === 6, 5_000);
    clock.advance(500);
    expect(statuses().at(-1)).toBe('starting');
  });

  test('a server that is not leased is not restarted', async () => {
    setUp();
    const lease = hub.lease('t1', stdioLaunch(dir));
    await hub.tools(lease);
    hub.release(lease);
    process.kill(dir.starts()[0]![0], 'SIGKILL');
    await waitUntil(() => events.length === 3, 5_000);
    clock.advance(10_000);
    expect(statuses()).toEqual(['starting', 'ready', 'failed: Transport closed']);
    expect(dir.starts().length).toBe(1);
  });

  test('a slow start fails at the startup timeout with the reference’s text', async () => {
    setUp();
    const lease = hub.lease('t1', stdioLaunch(dir, { startup_timeout_sec: 2 }, { MCP_FIXTURE_START_DELAY_MS: '60000' }));
    const tools = hub.tools(lease).catch((error: Error) => error.message);
    await waitUntil(() => dir.starts().length === 1, 5_000);
    clock.advance(2_000);
    expect(await tools).toBe(
      'MCP client for `fixture` timed out after 2 seconds. Add or adjust `startup_timeout_sec` in your config.toml:\n[mcp_servers.fixture]\nstartup_timeout_sec = XX',
    );
  });
});

describe('process groups', () => {
  test('close kills the server’s whole process group', async () => {
    setUp();
    const lease = hub.lease('t1', stdioLaunch(dir));
    const result = await hub.callTool(lease, 'grandchild', {});
    const sleepPid = Number((result.content[0] as { text: string }).text);
    const serverPid = dir.starts()[0]![0];
    expect([alive(serverPid), alive(sleepPid)]).toEqual([true, true]);
    await hub.close();
    await waitUntil(() => !alive(sleepPid) && !alive(serverPid), 5_000);
    expect([alive(serverPid), alive(sleepPid)]).toEqual([false, false]);
    expect(() => hub.lease('t2', lease.launch)).toThrow('the MCP hub is closed');
  });
});

describe('streamable HTTP', () => {
  async function httpLaunch(token: string | null) {
    const server = await startHttpFixture('s3cret');
    cleanups.push(() => server.child.kill());
    const table = { url: server.url, ...(token === null ? {} : { bearer_token_env_var: 'FIXTURE_TOKEN' }) };
    return resolveLaunch(resolveMcpServer('web', table), token === null ? {} : { FIXTURE_TOKEN: token });
  }

  test('with the right bearer token the call goes through', async () => {
    setUp();
    const lease = hub.lease('t1', await httpLaunch('s3cret'));
    expect(await hub.callTool(lease, 'echo', { text: 'over http' })).toEqual({
      content: [{ type: 'text', text: 'over http' }],
      structuredContent: null,
      _meta: null,
      isError: null,
    });
    expect(hub.status().map((status) => [status.name, Object.keys(status.tools), status.authStatus])).toEqual([['web', ['echo'], 'bearerToken']]);
  });

  test('with a wrong token, or none, the start fails and the call says why', async () => {
    setUp();
    for (const token of ['wrong', null]) {
      const lease = hub.lease('t1', await httpLaunch(token));
      const message = await hub.callTool(lease, 'echo', { text: 'x' }).catch((error: Error) => error.message);
      // The cause is the SDK transport's text for the 401.
      expect(message).toBe(
        'tool call failed for `web/echo`: MCP client for `web` failed to start: Streamable HTTP error: Error POSTing to endpoint: {"error":"unauthorized"}',
      );
    }
  });

  test('a bearer token variable that is not set is the reference’s error', () => {
    expect(() => resolveLaunch(resolveMcpServer('web', { url: 'http://127.0.0.1:1/mcp', bearer_token_env_var: 'NOPE' }), {})).toThrow(
      "Environment variable NOPE for MCP server 'web' is not set",
    );
  });
});
