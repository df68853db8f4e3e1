import { afterEach, describe, expect, test } from 'vitest';
import type { McpHub, McpStartupEvent } from '../../../../../src/main/tools/mcp/mcp-hub.js';
import { waitUntil } from '../../../../../src/main/wait-until.js';
import type { FakeClock } from '../../../../helpers/fake-clock.js';
import { alive, hubScene, type FixtureDir, stdioLaunch } from '../../../../helpers/mcp-fixtures.js';

let dir: FixtureDir;
let hub: McpHub;
let events: McpStartupEvent[];
let clock: FakeClock;

function setUp(): void {
  ({ dir, clock, events, hub } = hubScene());
}

afterEach(async () => {
  await hub.close();
  dir.remove();
});

const echoResult = (text: string) => ({ content: [{ type: 'text', text }], structuredContent: null, _meta: null, isError: null });

describe('one session per launch identity', () => {
  test('1,000 threads with one configured server run one process', async () => {
    setUp();
    const launch = stdioLaunch(dir);
    const leases = Array.from({ length: 1000 }, (_, n) => hub.lease(`thread-${n}`, launch));
    const results = await Promise.all(leases.filter((_, n) => n % 100 === 0).map((lease) => hub.callTool(lease, 'echo', { text: lease.threadId })));
    expect(results).toEqual(Array.from({ length: 10 }, (_, n) => echoResult(`thread-${n * 100}`)));
    expect(dir.starts().length).toBe(1);
    expect(events.map((event) => [event.status, event.threadIds.length])).toEqual([
      ['starting', 1000],
      ['ready', 1000],
    ]);
  });

  test('a different env is a different launch, and a different process', async () => {
    setUp();
    const a = hub.lease('t1', stdioLaunch(dir, {}, { MCP_FIXTURE_TAG: 'a' }));
    const b = hub.lease('t2', stdioLaunch(dir, {}, { MCP_FIXTURE_TAG: 'b' }));
    expect(a.launch.identity).not.toBe(b.launch.identity);
    await Promise.all([hub.callTool(a, 'echo', { text: 'a' }), hub.callTool(b, 'echo', { text: 'b' })]);
    expect(dir.starts().map(([, tag]) => tag).sort()).toEqual(['a', 'b']);
  });

  test('nothing starts until a lease is used', async () => {
    setUp();
    const lease = hub.lease('t1', stdioLaunch(dir));
    expect(hub.status()).toEqual([
      {
        name: 'fixture',
        tools: {},
        resources: [],
        resourceTemplates: [],
        authStatus: 'unsupported',
        runtimeStatus: 'notStarted',
        serverInfo: null,
        serverCapabilities: null,
        toolsError: null,
      },
    ]);
    expect(events).toEqual([]);
    expect(dir.starts()).toEqual([]);
    const tools = await hub.tools(lease);
    expect(tools.map((tool) => tool.name)).toEqual(['echo', 'fail', 'hang', 'exit', 'big', 'progress', 'elicit', 'grandchild', 'add_tool']);
    expect(dir.starts().length).toBe(1);
  });

  test('the session stops 10 s after its last lease is released, not before', async () => {
    setUp();
    const launch = stdioLaunch(dir);
    const first = hub.lease('t1', launch);
    const second = hub.lease('t2', launch);
    await hub.callTool(first, 'echo', { text: 'x' });
    const [[pid]] = dir.starts() as [[number, string]];
    hub.release(first);
    hub.releaseThread('t2');
    hub.release(second); // again: a no-op
    clock.advance(9_999);
    expect(hub.status().map((status) => status.runtimeStatus)).toEqual(['connected']);
    // A lease taken while lingering keeps the process.
    const third = hub.lease('t3', launch);
    clock.advance(10_000);
    expect(await hub.callTool(third, 'echo', { text: 'still' })).toEqual(echoResult('still'));
    expect(dir.starts().length).toBe(1);
    hub.release(third);
    clock.advance(10_000);
    expect(hub.status()).toEqual([]);
    await waitUntil(() => !alive(pid), 5_000);
    expect(alive(pid)).toBe(false);
    expect(() => hub.callTool(third, 'echo', { text: 'late' })).toThrow('the MCP lease of thread t3 on `fixture` was released');
  });

  test('status lists the tools through the lease’s enabled and disabled lists, with resources', async () => {
    setUp();
    const lease = hub.lease('t1', stdioLaunch(dir, { enabled_tools: ['echo', 'fail'], disabled_tools: ['fail'] }));
    expect((await hub.tools(lease)).map((tool) => tool.name)).toEqual(['echo']);
    expect(hub.status('t1')).toEqual([
      {
        name: 'fixture',
        tools: {
          echo: {
            name: 'echo',
            description: 'Returns its text',
            inputSchema: {
              $schema: 'http://json-schema.org/draft-07/schema#',
              type: 'object',
              properties: { text: { type: 'string' } },
              required: ['text'],
            },
            annotations: { readOnlyHint: true },
            execution: { taskSupport: 'forbidden' },
          },
        },
        resources: [{ name: 'readme', uri: 'fixture://readme', mimeType: 'text/plain' }],
        resourceTemplates: [],
        authStatus: 'unsupported',
        runtimeStatus: 'connected',
        serverInfo: { name: 'stdio-fixture', title: null, version: '1.0.0', description: null, icons: null, websiteUrl: null },
        serverCapabilities: { resources: { listChanged: true }, tools: { listChanged: true } },
        toolsError: null,
      },
    ]);
    expect(hub.status('other')).toEqual([]);
    expect(await hub.readResource(lease, 'fixture://readme')).toEqual({ contents: [{ uri: 'fixture://readme', text: 'read me' }] });
    await expect(hub.callTool(lease, 'fail', {})).rejects.toThrow('tool call failed for `fixture/fail`: tool `fail` is not enabled for this server');
  });

  test('tools/list_changed lists the tools again', async () => {
    setUp();
    const lease = hub.lease('t1', stdioLaunch(dir));
    await hub.callTool(lease, 'add_tool', {});
    await waitUntil(() => 'added' in (hub.status('t1')[0]?.tools ?? {}), 5_000);
    expect((await hub.tools(lease)).map((tool) => tool.name).at(-1)).toBe('added');
  });
});
