import { afterEach, describe, expect, test } from 'vitest';
import { McpHub, type McpLease } from '../../../../../src/main/tools/mcp/mcp-hub.js';
import { McpCallError } from '../../../../../src/main/tools/mcp/tool-call-result.js';
import { waitUntil } from '../../../../../src/main/wait-until.js';
import { FakeClock } from '../../../../helpers/fake-clock.js';
import { FixtureDir, stdioLaunch } from '../../../../helpers/mcp-fixtures.js';

let dir: FixtureDir;
let hub: McpHub;
let clock: FakeClock;

async function readyLease(table: Record<string, unknown> = {}): Promise<McpLease> {
  dir = new FixtureDir();
  clock = new FakeClock();
  hub = new McpHub({ clock });
  const lease = hub.lease('t1', stdioLaunch(dir, table));
  await hub.tools(lease);
  return lease;
}

/** What a rejected call gave: its failure kind and text. */
async function failureOf(call: Promise<unknown>): Promise<{ failure: string; message: string }> {
  try {
    await call;
  } catch (error) {
    if (error instanceof McpCallError) return { failure: error.failure, message: error.message };
    throw error;
  }
  throw new Error('the call did not fail');
}

afterEach(async () => {
  await hub.close();
  dir.remove();
});

describe('tool calls', () => {
  test('echo gives the whole result', async () => {
    const lease = await readyLease();
    expect(await hub.callTool(lease, 'echo', { text: 'hello' })).toEqual({
      content: [{ type: 'text', text: 'hello' }],
      structuredContent: null,
      _meta: null,
      isError: null,
    });
  });

  test('an isError result is a result, not a failure', async () => {
    const lease = await readyLease();
    expect(await hub.callTool(lease, 'fail', {})).toEqual({
      content: [{ type: 'text', text: 'it failed' }],
      structuredContent: null,
      _meta: null,
      isError: true,
    });
  });

  test('a call that never answers fails at the tool timeout with the reference’s text', async () => {
    const lease = await readyLease({ tool_timeout_sec: 2.5 });
    const call = failureOf(hub.callTool(lease, 'hang', {}));
    clock.advance(2_499);
    clock.advance(1);
    expect(await call).toEqual({ failure: 'timedOut', message: 'tool call failed for `fixture/hang`: timed out awaiting tools/call after 2500ms' });
    // The session is still there for the next call.
    expect((await hub.callTool(lease, 'echo', { text: 'after' })).content).toEqual([{ type: 'text', text: 'after' }]);
  });

  test('a shorter deadline from the caller wins, and the signal aborts at once', async () => {
    const lease = await readyLease();
    const shorter = failureOf(hub.callTool(lease, 'hang', {}, { deadlineMs: 250 }));
    clock.advance(250);
    expect(await shorter).toEqual({ failure: 'timedOut', message: 'tool call failed for `fixture/hang`: timed out awaiting tools/call after 250ms' });
    const controller = new AbortController();
    const aborted = failureOf(hub.callTool(lease, 'hang', {}, { signal: controller.signal }));
    controller.abort();
    expect(await aborted).toEqual({ failure: 'cancelled', message: 'tool call failed for `fixture/hang`: cancelled' });
  });

  test('a server that exits mid-call fails that call at once, not at the deadline', async () => {
    const lease = await readyLease();
    const started = Date.now();
    expect(await failureOf(hub.callTool(lease, 'exit', {}))).toEqual({
      failure: 'transportClosed',
      message: 'tool call failed for `fixture/exit`: Transport closed',
    });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(clock.now()).toBe(0);
  });

  test('a result over 1 MiB is refused', async () => {
    const lease = await readyLease();
    expect(await failureOf(hub.callTool(lease, 'big', {}))).toEqual({
      failure: 'tooLarge',
      message: 'tool call failed for `fixture/big`: result of 2097244 bytes exceeds the 1048576-byte limit',
    });
  });

  test('progress notifications reach the callback, in order, before the answer', async () => {
    const lease = await readyLease();
    const seen: unknown[] = [];
    const result = await hub.callTool(lease, 'progress', {}, { onProgress: (progress) => seen.push(progress) });
    expect(seen).toEqual([
      { progress: 1, total: 3, message: 'step 1' },
      { progress: 2, total: 3, message: 'step 2' },
      { progress: 3, total: 3, message: 'step 3' },
    ]);
    expect(result.content).toEqual([{ type: 'text', text: 'done' }]);
  });

  test('an elicitation goes to the call that caused it and its answer back to the server', async () => {
    const lease = await readyLease();
    const asked: unknown[] = [];
    const result = await hub.callTool(lease, 'elicit', {}, {
      onElicitation: async (params) => {
        asked.push(params);
        return { action: 'accept', content: { name: 'Ada' } };
      },
    });
    expect(asked).toEqual([
      { mode: 'form', message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
    ]);
    expect(result.content).toEqual([{ type: 'text', text: JSON.stringify({ action: 'accept', content: { name: 'Ada' } }) }]);
  });

  test('an elicitation with no call to answer it is cancelled', async () => {
    const lease = await readyLease();
    const result = await hub.callTool(lease, 'elicit', {});
    expect(result.content).toEqual([{ type: 'text', text: JSON.stringify({ action: 'cancel' }) }]);
  });

  test('one thread’s hanging call does not hold up another’s', async () => {
    const lease = await readyLease();
    const other = hub.lease('t2', lease.launch);
    const hanging = failureOf(hub.callTool(lease, 'hang', {}));
    expect((await hub.callTool(other, 'echo', { text: 'free' })).content).toEqual([{ type: 'text', text: 'free' }]);
    clock.advance(300_000);
    expect((await hanging).failure).toBe('timedOut');
  });

  test('a server that cannot start fails the call with the reference’s startup text', async () => {
    dir = new FixtureDir();
    clock = new FakeClock();
    hub = new McpHub({ clock });
    const lease = hub.lease('t1', stdioLaunch(dir, {}, { MCP_FIXTURE_EXIT_AT_START: '1' }));
    expect(await failureOf(hub.callTool(lease, 'echo', { text: 'x' }))).toEqual({
      failure: 'startupFailed',
      message: 'tool call failed for `fixture/echo`: MCP client for `fixture` failed to start: MCP error -32000: Connection closed',
    });
    await waitUntil(() => hub.status()[0]?.runtimeStatus === 'failed', 1_000);
    expect(hub.status()[0]?.runtimeStatus).toBe('failed');
  });
});
