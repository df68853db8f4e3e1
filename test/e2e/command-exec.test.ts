// A client's own commands end to end against a real host: `command/exec` (buffered, streamed, on a terminal,
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
const FULL = { type: 'dangerFullAccess' };
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

/** A terminal's deltas, checked for their fields, as the one text they carry (reads split it anywhere). */
function terminalText(server: TestServer, processId: string): string {
  const seen = deltas(server, processId);
  expect(seen.map(({ deltaBase64: _bytes, ...rest }) => rest)).toEqual(seen.map(() => ({ processId, stream: 'stdout', capReached: false })));
  return seen.map((delta) => Buffer.from(delta.deltaBase64, 'base64').toString()).join('');
}

async function waitForText(server: TestServer, processId: string, text: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!terminalText(server, processId).includes(text)) {
    if (Date.now() > deadline) throw new Error(`${processId} never printed ${JSON.stringify(text)}: ${JSON.stringify(terminalText(server, processId))}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('tty: the command runs on a terminal of the given size, its input echoed and its lines ended CRLF, all on stdout', async () => {
  const server = await start();
  try {
    const script = 'stty size; [ -t 0 ] && [ -t 1 ] && [ -t 2 ] && echo on-tty; echo err >&2; read x; echo got:$x; exit 3';
    const run = answer(server, 'command/exec', { command: ['bash', '-c', script], cwd: workspace, processId: 'y1', tty: true, size: { rows: 30, cols: 100 } });
    await waitForText(server, 'y1', 'err');
    expect(await answer(server, 'command/exec/write', { processId: 'y1', deltaBase64: b64('hello\n') })).toEqual({ result: {} });
    expect(await run).toEqual({ result: { exitCode: 3, stdout: '', stderr: '' } });
    expect(terminalText(server, 'y1')).toBe('30 100\r\non-tty\r\nerr\r\nhello\r\ngot:hello\r\n');
    // Without a size, the reference's 24 x 80; streamStdoutStderr false streams all the same.
    expect(await answer(server, 'command/exec', { command: ['stty', 'size'], cwd: workspace, processId: 'y2', tty: true, streamStdoutStderr: false })).toEqual({ result: { exitCode: 0, stdout: '', stderr: '' } });
    expect(terminalText(server, 'y2')).toBe('24 80\r\n');
  } finally {
    await server.close();
  }
});

test('tty: resize reaches the command (SIGWINCH, the new size); a bad size or an ended command is refused', async () => {
  const server = await start();
  try {
    const run = answer(server, 'command/exec', { command: ['bash', '-c', 'trap "stty size" WINCH; echo ready; while :; do sleep 0.05; done'], cwd: workspace, processId: 'r1', tty: true, sandboxPolicy: FULL });
    await waitForText(server, 'r1', 'ready');
    expect(await answer(server, 'command/exec/resize', { processId: 'r1', size: { rows: 40, cols: 120 } })).toEqual({ result: {} });
    await waitForText(server, 'r1', '40 120');
    const badSize = { error: { code: -32602, message: 'command/exec size rows and cols must be greater than 0' } };
    expect(await answer(server, 'command/exec/resize', { processId: 'r1', size: { rows: 0, cols: 120 } })).toEqual(badSize);
    expect(await answer(server, 'command/exec/resize', { processId: 'nope', size: { rows: 5, cols: 0 } })).toEqual(badSize);
    expect(await answer(server, 'command/exec/resize', { processId: 'r1', size: { rows: 70000, cols: 1 } })).toEqual({ error: { code: -32600, message: 'Invalid request: invalid value: integer `70000`, expected u16' } });
    // Terminate kills its group; a death by signal on a terminal is exit 1, as the reference's.
    expect(await answer(server, 'command/exec/terminate', { processId: 'r1' })).toEqual({ result: {} });
    expect(await run).toEqual({ result: { exitCode: 1, stdout: '', stderr: '' } });
    expect(terminalText(server, 'r1')).toBe('ready\r\n40 120\r\n');
    expect(await answer(server, 'command/exec/resize', { processId: 'r1', size: { rows: 5, cols: 5 } })).toEqual({ error: { code: -32600, message: 'no active command/exec for process id "r1"' } });
  } finally {
    await server.close();
  }
});

test('tty: Ctrl-C is SIGINT to the command, Ctrl-D and closeStdin end its input, a write after closeStdin is refused', async () => {
  const server = await start();
  try {
    const trapped = answer(server, 'command/exec', { command: ['bash', '-c', 'trap "echo INT; exit 5" INT; echo ready; while :; do sleep 0.05; done'], cwd: workspace, processId: 'c1', tty: true, sandboxPolicy: FULL });
    await waitForText(server, 'c1', 'ready');
    await answer(server, 'command/exec/write', { processId: 'c1', deltaBase64: b64('\x03') });
    expect(await trapped).toEqual({ result: { exitCode: 5, stdout: '', stderr: '' } });
    expect(terminalText(server, 'c1')).toBe('ready\r\n^CINT\r\n');

    const cat = answer(server, 'command/exec', { command: ['cat'], cwd: workspace, processId: 'd1', tty: true });
    await answer(server, 'command/exec/write', { processId: 'd1', deltaBase64: b64('abc\n\x04') });
    expect(await cat).toEqual({ result: { exitCode: 0, stdout: '', stderr: '' } });
    expect(terminalText(server, 'd1')).toBe('abc\r\nabc\r\n');

    // closeStdin sends a newline and the end-of-file character, as the reference's pty writer.
    const sleeper = answer(server, 'command/exec', { command: ['bash', '-c', 'echo ready; sleep 1.5; echo end'], cwd: workspace, processId: 'e1', tty: true });
    await waitForText(server, 'e1', 'ready');
    expect(await answer(server, 'command/exec/write', { processId: 'e1', closeStdin: true })).toEqual({ result: {} });
    expect(await answer(server, 'command/exec/write', { processId: 'e1', deltaBase64: b64('x') })).toEqual({ error: { code: -32600, message: 'stdin is already closed' } });
    expect(await answer(server, 'command/exec/write', { processId: 'e1', closeStdin: true })).toEqual({ result: {} });
    expect(await sleeper).toEqual({ result: { exitCode: 0, stdout: '', stderr: '' } });
    expect(terminalText(server, 'e1')).toBe('ready\r\n\r\nend\r\n');
  } finally {
    await server.close();
  }
});

test('tty: the sandbox holds on a terminal too; resize and Ctrl-C reach bwrap, not the command inside it, as in the reference; its deadline answers 124', async () => {
  const server = await start();
  try {
    const outside = '/var/tmp/thread-host-cmdexec-tty.txt';
    const script = `stty size; echo x > ${outside}; echo x > inside-tty.txt && cat inside-tty.txt`;
    expect(await answer(server, 'command/exec', { command: ['bash', '-c', script], cwd: workspace, processId: 's1', tty: true, size: { rows: 12, cols: 34 } })).toEqual({ result: { exitCode: 0, stdout: '', stderr: '' } });
    expect(terminalText(server, 's1')).toBe(`12 34\r\nbash: line 1: ${outside}: Read-only file system\r\nx\r\n`);
    const readOnly = { type: 'readOnly' };
    expect(await answer(server, 'command/exec', { command: ['bash', '-c', 'echo x > ro-tty.txt'], cwd: workspace, processId: 's2', tty: true, sandboxPolicy: readOnly })).toEqual({ result: { exitCode: 1, stdout: '', stderr: '' } });
    expect(terminalText(server, 's2')).toBe('bash: line 1: ro-tty.txt: Read-only file system\r\n');
    expect(await answer(server, 'command/exec', { command: ['bash', '-c', 'echo a; sleep 5'], cwd: workspace, processId: 's3', tty: true, timeoutMs: 300 })).toEqual({ result: { exitCode: 124, stdout: '', stderr: '' } });
    expect(terminalText(server, 's3')).toBe('a\r\n');
    // The sandboxed command is in a session of its own (bwrap --new-session): SIGWINCH and
    // SIGINT go to the terminal's foreground group, bwrap's, and Ctrl-C ends bwrap.
    const script2 = 'trap "stty size" WINCH; trap "echo INT; exit 5" INT; echo ready; while :; do sleep 0.05; done';
    const trapped = answer(server, 'command/exec', { command: ['bash', '-c', script2], cwd: workspace, processId: 's4', tty: true });
    await waitForText(server, 's4', 'ready');
    expect(await answer(server, 'command/exec/resize', { processId: 's4', size: { rows: 41, cols: 121 } })).toEqual({ result: {} });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await answer(server, 'command/exec/write', { processId: 's4', deltaBase64: b64('\x03') })).toEqual({ result: {} });
    expect(await trapped).toEqual({ result: { exitCode: 1, stdout: '', stderr: '' } });
    expect(terminalText(server, 's4')).toBe('ready\r\n^C');
  } finally {
    await server.close();
  }
});

test('tty: terminate and a closed connection kill the whole group', async () => {
  const server = await start();
  const run = answer(server, 'command/exec', { command: ['bash', '-c', 'sleep 39.25 & echo up; sleep 39.5'], cwd: workspace, processId: 'k1', tty: true });
  await waitForText(server, 'k1', 'up');
  expect(await answer(server, 'command/exec/terminate', { processId: 'k1' })).toEqual({ result: {} });
  expect(await run).toEqual({ result: { exitCode: 1, stdout: '', stderr: '' } });
  await waitForProcess('sleep 39.25', false);
  const closing = answer(server, 'command/exec', { command: ['bash', '-c', 'echo up; sleep 39.75'], cwd: workspace, processId: 'k2', tty: true }).catch(() => null);
  await waitForText(server, 'k2', 'up');
  await waitForProcess('sleep 39.75', true);
  await server.close();
  await closing;
  await waitForProcess('sleep 39.75', false);
});

test("tty and write: the reference's refusals", async () => {
  const server = await start();
  try {
    const invalidParams = (message: string) => ({ error: { code: -32602, message } });
    expect(await answer(server, 'command/exec', { command: ['true'], size: { rows: 3, cols: 3 } })).toEqual(invalidParams('command/exec size requires tty: true'));
    expect(await answer(server, 'command/exec', { command: ['true'], tty: true, size: { rows: 0, cols: 3 } })).toEqual(invalidParams('command/exec size rows and cols must be greater than 0'));
    expect(await answer(server, 'command/exec', { command: ['true'], outputBytesCap: 5, disableOutputCap: true })).toEqual(invalidParams('command/exec cannot set both outputBytesCap and disableOutputCap'));
    expect(await answer(server, 'command/exec', { command: ['true'], timeoutMs: 5, disableTimeout: true })).toEqual(invalidParams('command/exec cannot set both timeoutMs and disableTimeout'));
    expect(await answer(server, 'command/exec', { command: ['true'], tty: true })).toEqual({ error: { code: -32600, message: 'command/exec tty or streaming requires a client-supplied processId' } });
    const missing = { error: { code: -32603, message: 'failed to spawn command: No such file or directory (os error 2)' } };
    expect(await answer(server, 'command/exec', { command: ['/nonexistent/prog'], processId: 'm1', tty: true, sandboxPolicy: FULL })).toEqual(missing);
    expect(await answer(server, 'command/exec', { command: ['/nonexistent/prog'], sandboxPolicy: FULL })).toEqual(missing);
    const run = answer(server, 'command/exec', { command: ['sleep', '0.5'], cwd: workspace, processId: 'w1', streamStdin: true });
    expect(await answer(server, 'command/exec/write', { processId: 'w1' })).toEqual(invalidParams('command/exec/write requires deltaBase64 or closeStdin'));
    expect(await answer(server, 'command/exec/write', { processId: 'w1', deltaBase64: 'YQ' })).toEqual(invalidParams('invalid deltaBase64: Invalid padding'));
    expect(await answer(server, 'command/exec/write', { processId: 'w1', deltaBase64: 'YW Jj' })).toEqual(invalidParams('invalid deltaBase64: Invalid symbol 32, offset 2.'));
    expect(await answer(server, 'command/exec/write', { processId: 'w1', deltaBase64: 'YR==' })).toEqual(invalidParams('invalid deltaBase64: Invalid last symbol 82, offset 1.'));
    expect(await answer(server, 'command/exec/write', { processId: 'w1', deltaBase64: 'Y' })).toEqual(invalidParams('invalid deltaBase64: Invalid input length: 1'));
    expect(await answer(server, 'command/exec/write', { processId: 'w1', closeStdin: true })).toEqual({ result: {} });
    expect(await answer(server, 'command/exec/write', { processId: 'w1', deltaBase64: 'YQ==' })).toEqual({ error: { code: -32600, message: 'stdin is already closed' } });
    expect(await run).toEqual({ result: { exitCode: 0, stdout: '', stderr: '' } });
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
