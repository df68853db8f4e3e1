// A client's own commands end to end against a real host: `command/exec` (buffered, streamed,
// with stdin, terminated, timed out, sandboxed), its follow-ups' errors, and
// `thread/shellCommand`'s turn. Expected answers are the reference's (codex-cli 0.171.0,
// /work/facts/captures-40/s7-command-exec and probes of the same build: docs/tools.md,
// command/exec).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { functionCallItem, messageItem, startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { TestServer, type Message } from '../helpers/test-server.js';

let mock: MockModel;
let workspace: string;
beforeAll(async () => {
  mock = await startMockModel({ reply: 'Done' });
  workspace = mkdtempSync(join(tmpdir(), 'thread-host-cmdexec-ws-'));
});
afterAll(() => {
  mock.close();
  rmSync(workspace, { recursive: true, force: true });
});

// As the reference was probed: workspace-write from the configuration (-c over config.toml).
const start = () => TestServer.start({ modelUrl: mock.url, args: ['-c', 'sandbox_mode="workspace-write"'], env: { HOME: workspace } });
const b64 = (text: string) => Buffer.from(text).toString('base64');
/** The whole reply (`{id, result}` or `{id, error}`), without its id. */
async function answer(server: TestServer, method: string, params: unknown): Promise<Message> {
  const { id: _id, ...rest } = await server.requestRaw(method, params, 20_000);
  return rest;
}
const deltas = (server: TestServer, processId: string) =>
  server.notifications('command/exec/outputDelta').filter((n) => n.params.processId === processId).map((n) => n.params);

test('a command runs to its end: exit code, stdout and stderr, no notifications', async () => {
  const server = await start();
  try {
    expect(await answer(server, 'command/exec', { command: ['bash', '-c', 'echo hi; echo err >&2'], cwd: workspace })).toEqual({ result: { exitCode: 0, stdout: 'hi\n', stderr: 'err\n' } });
    expect(await answer(server, 'command/exec', { command: ['bash', '-c', 'echo hi; echo err >&2; exit 2'], cwd: workspace })).toEqual({ result: { exitCode: 2, stdout: 'hi\n', stderr: 'err\n' } });
    expect(server.notifications('command/exec/outputDelta')).toEqual([]);
  } finally {
    await server.close();
  }
});

test('streaming sends base64 deltas before the reply, which repeats none of them', async () => {
  const server = await start();
  try {
    const reply = await answer(server, 'command/exec', { command: ['bash', '-c', 'echo a; sleep 0.3; echo b >&2'], cwd: workspace, processId: 'p1', streamStdoutStderr: true });
    expect(reply).toEqual({ result: { exitCode: 0, stdout: '', stderr: '' } });
    expect(deltas(server, 'p1')).toEqual([
      { processId: 'p1', stream: 'stdout', deltaBase64: 'YQo=', capReached: false },
      { processId: 'p1', stream: 'stderr', deltaBase64: 'Ygo=', capReached: false },
    ]);
    // The reply follows the last delta.
    const order = server.received.filter((m) => m.method === 'command/exec/outputDelta' || m.result?.exitCode !== undefined).map((m) => m.method ?? 'reply');
    expect(order).toEqual(['command/exec/outputDelta', 'command/exec/outputDelta', 'reply']);
    // The output cap ends a stream's deltas with the one that reaches it.
    await answer(server, 'command/exec', { command: ['bash', '-c', 'printf aaaaaaaaaaaaaaaaaaaa'], cwd: workspace, processId: 'cap', streamStdoutStderr: true, outputBytesCap: 10 });
    expect(deltas(server, 'cap')).toEqual([{ processId: 'cap', stream: 'stdout', deltaBase64: b64('aaaaaaaaaa'), capReached: true }]);
  } finally {
    await server.close();
  }
});

test('command/exec/write feeds stdin and closes it', async () => {
  const server = await start();
  try {
    const run = answer(server, 'command/exec', { command: ['bash', '-c', 'read x; echo got:$x; cat'], cwd: workspace, processId: 'w1', streamStdin: true });
    expect(await answer(server, 'command/exec/write', { processId: 'w1', deltaBase64: b64('hello\nmore\n') })).toEqual({ result: {} });
    expect(await answer(server, 'command/exec/write', { processId: 'w1', closeStdin: true })).toEqual({ result: {} });
    expect(await run).toEqual({ result: { exitCode: 0, stdout: 'got:hello\nmore\n', stderr: '' } });
  } finally {
    await server.close();
  }
});

test('the follow-ups refuse what the reference refuses', async () => {
  const server = await start();
  try {
    const unknown = { error: { code: -32600, message: 'no active command/exec for process id "nope"' } };
    expect(await answer(server, 'command/exec/write', { processId: 'nope', deltaBase64: 'YQ==' })).toEqual(unknown);
    expect(await answer(server, 'command/exec/terminate', { processId: 'nope' })).toEqual(unknown);
    expect(await answer(server, 'command/exec/resize', { processId: 'nope', size: { rows: 10, cols: 10 } })).toEqual(unknown);
    expect(await answer(server, 'command/exec', { command: ['true'], streamStdoutStderr: true })).toEqual({ error: { code: -32600, message: 'command/exec tty or streaming requires a client-supplied processId' } });
    expect(await answer(server, 'command/exec', { command: [] })).toEqual({ error: { code: -32600, message: 'command must not be empty' } });
    const run = answer(server, 'command/exec', { command: ['sleep', '0.5'], cwd: workspace, processId: 'ns1' });
    expect(await answer(server, 'command/exec/write', { processId: 'ns1', deltaBase64: 'YQ==' })).toEqual({ error: { code: -32600, message: 'stdin streaming is not enabled for this command/exec' } });
    expect(await answer(server, 'command/exec', { command: ['true'], processId: 'ns1' })).toEqual({ error: { code: -32600, message: 'duplicate active command/exec process id: "ns1"' } });
    expect(await answer(server, 'command/exec/resize', { processId: 'ns1', size: { rows: 5, cols: 5 } })).toEqual({ error: { code: -32600, message: 'failed to resize PTY: process is not attached to a PTY' } });
    expect(await run).toEqual({ result: { exitCode: 0, stdout: '', stderr: '' } });
  } finally {
    await server.close();
  }
});

test('terminate kills the process group: the run answers 137 and no process is left', async () => {
  const server = await start();
  try {
    const run = answer(server, 'command/exec', { command: ['bash', '-c', 'echo start; sleep 37.75'], cwd: workspace, processId: 't1', streamStdoutStderr: true });
    await server.waitForNotification('command/exec/outputDelta', (p) => p.processId === 't1');
    expect(await answer(server, 'command/exec/terminate', { processId: 't1' })).toEqual({ result: {} });
    expect(await run).toEqual({ result: { exitCode: 137, stdout: '', stderr: '' } });
    expect(deltas(server, 't1')).toEqual([{ processId: 't1', stream: 'stdout', deltaBase64: b64('start\n'), capReached: false }]);
    await waitForProcess('sleep 37.75', false);
  } finally {
    await server.close();
  }
});

test('a command past its timeoutMs is killed and answers 124', async () => {
  const server = await start();
  try {
    expect(await answer(server, 'command/exec', { command: ['bash', '-c', 'sleep 5'], cwd: workspace, timeoutMs: 300 })).toEqual({ result: { exitCode: 124, stdout: '', stderr: '' } });
  } finally {
    await server.close();
  }
});

test('the configured workspace-write sandbox refuses a write outside the workspace', async () => {
  const server = await start();
  try {
    expect(await answer(server, 'command/exec', { command: ['bash', '-c', 'echo x > /var/tmp/thread-host-cmdexec.txt'], cwd: workspace })).toEqual({
      result: { exitCode: 1, stdout: '', stderr: 'bash: line 1: /var/tmp/thread-host-cmdexec.txt: Read-only file system\n' },
    });
    expect(await answer(server, 'command/exec', { command: ['bash', '-c', 'echo x > inside.txt && cat inside.txt'], cwd: workspace })).toEqual({ result: { exitCode: 0, stdout: 'x\n', stderr: '' } });
  } finally {
    await server.close();
  }
});

test('a running command is killed when its connection closes', async () => {
  const server = await start();
  const run = answer(server, 'command/exec', { command: ['bash', '-c', 'echo up; sleep 38.25'], cwd: workspace, processId: 'c1', streamStdoutStderr: true }).catch(() => null);
  await server.waitForNotification('command/exec/outputDelta', (p) => p.processId === 'c1');
  await waitForProcess('sleep 38.25', true);
  await server.close();
  await run;
  await waitForProcess('sleep 38.25', false);
});

test('thread/shellCommand answers {} and runs its own turn with a userShell item, no model request', async () => {
  const server = await start();
  try {
    const { thread } = await server.request('thread/start', { cwd: workspace });
    const requests = mock.requests.length;
    const before = server.received.length;
    expect(await answer(server, 'thread/shellCommand', { threadId: thread.id, command: 'echo shell-hi' })).toEqual({ result: {} });
    const completed = await server.waitForNotification('turn/completed', (p) => p.threadId === thread.id, 20_000);
    const seen = server.received.slice(before).filter((m) => (m.method !== undefined && m.method !== 'thread/started') || m.result !== undefined).map(({ id: _id, emittedAtMs: _at, ...m }) => m);
    const turnId = completed.turn.id as string;
    const item = {
      type: 'commandExecution', id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/), pluginId: null, scriptPath: null,
      command: "/bin/bash -lc 'echo shell-hi'", cwd: workspace, processId: null, source: 'userShell', status: 'inProgress',
      commandActions: [{ type: 'unknown', command: 'echo shell-hi' }], aggregatedOutput: null, exitCode: null, durationMs: null, startedAtMs: expect.any(Number), completedAtMs: null,
    };
    const itemId = seen.find((m) => m.method === 'item/started')!.params.item.id as string;
    const turn = { id: turnId, rootTurnId: turnId, items: [], itemsView: 'notLoaded', error: null, startedAt: expect.any(Number) };
    expect(seen).toEqual([
      { result: {} },
      { method: 'thread/status/changed', params: { threadId: thread.id, status: { type: 'active', activeFlags: [] } } },
      { method: 'turn/started', params: { threadId: thread.id, turn: { ...turn, status: 'inProgress', completedAt: null, durationMs: null } } },
      { method: 'item/started', params: { item, threadId: thread.id, turnId, startedAtMs: expect.any(Number) } },
      { method: 'item/commandExecution/outputDelta', params: { threadId: thread.id, turnId, itemId, delta: 'shell-hi\n' } },
      {
        method: 'item/completed',
        params: { item: { ...item, status: 'completed', aggregatedOutput: 'shell-hi\n', exitCode: 0, durationMs: expect.any(Number), completedAtMs: expect.any(Number) }, threadId: thread.id, turnId, contentTokenCount: null, completedAtMs: expect.any(Number) },
      },
      { method: 'thread/status/changed', params: { threadId: thread.id, status: { type: 'idle' } } },
      { method: 'turn/completed', params: { threadId: thread.id, turn: { ...turn, status: 'completed', completedAt: expect.any(Number), durationMs: expect.any(Number) } } },
    ]);
    expect(mock.requests.length).toBe(requests);
  } finally {
    await server.close();
  }
});

test('thread/shellCommand runs outside the sandbox; a failing command fails its item, not its turn', async () => {
  const server = await start();
  try {
    const { thread } = await server.request('thread/start', { cwd: workspace });
    expect(await answer(server, 'thread/shellCommand', { threadId: thread.id, command: '' })).toEqual({ error: { code: -32600, message: 'command must not be empty' } });
    const missing = '00000000-0000-0000-0000-000000000000';
    expect(await answer(server, 'thread/shellCommand', { threadId: missing, command: 'echo' })).toEqual({ error: { code: -32600, message: `thread not found: ${missing}` } });
    const outside = join(tmpdir(), '..', 'var', 'tmp', `thread-host-user-shell-${process.pid}.txt`);
    await answer(server, 'thread/shellCommand', { threadId: thread.id, command: `echo x > ${outside}; echo $?; rm -f ${outside}; exit 3` });
    const completed = await server.waitForNotification('turn/completed', (p) => p.threadId === thread.id, 20_000);
    expect(completed.turn.status).toBe('completed');
    const item = server.notifications('item/completed').at(-1)!.params.item;
    expect(item).toMatchObject({ source: 'userShell', status: 'failed', aggregatedOutput: '0\n', exitCode: 3 });
  } finally {
    await server.close();
  }
});

test('thread/shellCommand while a turn runs joins that turn', async () => {
  const server = await start();
  try {
    const { thread } = await server.request('thread/start', { cwd: workspace });
    mock.enqueue({ kind: 'output', items: [functionCallItem('call-1', 'exec_command', { cmd: 'sleep 1.5' })] });
    mock.enqueue({ kind: 'output', items: [messageItem('msg-1', 'done')] });
    const { turn } = await server.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'go' }] });
    await server.waitForNotification('item/started', (p) => p.item.id === 'call-1');
    expect(await answer(server, 'thread/shellCommand', { threadId: thread.id, command: 'echo joined' })).toEqual({ result: {} });
    const completed = await server.waitForNotification('turn/completed', (p) => p.threadId === thread.id, 20_000);
    expect(completed.turn).toMatchObject({ id: turn.id, status: 'completed' });
    expect(server.notifications('turn/started').map((n) => n.params.turn.id)).toEqual([turn.id]);
    const shell = server.notifications('item/completed').find((n) => n.params.item.source === 'userShell')!.params;
    expect(shell).toMatchObject({ turnId: turn.id, item: { command: "/bin/bash -lc 'echo joined'", status: 'completed', aggregatedOutput: 'joined\n', exitCode: 0 } });
  } finally {
    await server.close();
  }
});

test('turn/interrupt of a user-shell turn kills its command: the item fails as aborted, the turn ends interrupted', async () => {
  const server = await start();
  try {
    const { thread } = await server.request('thread/start', { cwd: workspace });
    await answer(server, 'thread/shellCommand', { threadId: thread.id, command: 'echo up; sleep 38.75' });
    const started = await server.waitForNotification('turn/started', (p) => p.threadId === thread.id);
    await server.waitForNotification('item/commandExecution/outputDelta', (p) => p.threadId === thread.id);
    expect(await answer(server, 'turn/interrupt', { threadId: thread.id, turnId: started.turn.id })).toEqual({ result: {} });
    const completed = await server.waitForNotification('turn/completed', (p) => p.threadId === thread.id, 10_000);
    expect(completed.turn).toMatchObject({ id: started.turn.id, status: 'interrupted', items: [], itemsView: 'notLoaded', error: null });
    expect(server.notifications('item/completed').at(-1)!.params.item).toMatchObject({
      source: 'userShell', status: 'failed', aggregatedOutput: 'command aborted by user', exitCode: -1, durationMs: 0,
    });
    await waitForProcess('sleep 38.75', false);
  } finally {
    await server.close();
  }
});

async function waitForProcess(pattern: string, running: boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    let found = true;
    try {
      execFileSync('pgrep', ['-f', pattern]);
    } catch {
      found = false;
    }
    if (found === running) return;
    if (Date.now() > deadline) throw new Error(`${pattern} ${running ? 'never started' : 'is still running'}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
