// Unified-exec sessions end to end: an `exec_command` still running after its yield time is a
// session the model polls and feeds with `write_stdin`; it outlives its call, its turn and an
// interrupt, and ends with its thread's unload. What the model is told, the notifications, the
// rollout's records and a cold read are the reference's (codex-cli 0.171.0, probed: docs/tools.md,
// Commands, Sessions), against a real host, real processes and the mock model.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { functionCallItem, messageItem, startMockModel, type MockBehaviour, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { TestServer, type Message } from '../helpers/test-server.js';

let mock: MockModel;
let root: string;
let workspace: string;
beforeAll(async () => {
  mock = await startMockModel({ reply: 'Done' });
  root = mkdtempSync(join(tmpdir(), 'thread-host-sessions-'));
  workspace = mkdtempSync(join(root, 'ws-'));
});
afterAll(() => {
  mock.close();
  rmSync(root, { recursive: true, force: true });
});

// A home of its own keeps the login shell from reading the user's profile.
// Threads unload as soon as nobody is subscribed, so a test can see a session end with its thread.
const start = (home?: string) => TestServer.start({ modelUrl: mock.url, rootConfig: 'thread_unload_delay_secs = 0', env: { HOME: workspace }, ...(home === undefined ? {} : { home }) });
const text = (value: string) => [{ type: 'text', text: value }];
const call = (id: string, name: string, args: unknown): MockBehaviour => ({ kind: 'output', items: [functionCallItem(id, name, args)] });
const reply = (id: string): MockBehaviour => ({ kind: 'output', items: [messageItem(id, 'Done')] });
// Where a read must find output, its yield is long and the command prints at once: a loaded
// machine must not turn a yield into a race. A read of an end returns as soon as it comes.

/**
 * The model's replies in order; a step may read the session ids the host has told it so far
 * (from the requests' `Process running with session ID N`).
 */
function script(steps: Array<MockBehaviour | ((sessions: number[]) => MockBehaviour)>): void {
  const queue = [...steps];
  mock.setResponder((request) => {
    const step = queue.shift();
    if (step === undefined) return undefined;
    if (typeof step !== 'function') return step;
    const sessions = [...JSON.stringify(request.body).matchAll(/session ID (\d+)/g)].map((m) => Number(m[1]));
    return step([...new Set(sessions)]);
  });
}

/** One turn of a new thread in `sandbox` that runs `steps`: the thread, the turn, and the model's outputs. */
async function scriptedTurn(server: TestServer, sandbox: string, steps: Parameters<typeof script>[0]): Promise<{ threadId: string; turnId: string; outputs: string[] }> {
  const { thread } = await server.request('thread/start', { cwd: workspace, approvalPolicy: 'never', sandbox });
  const first = mock.requests.length;
  script(steps);
  const { turn } = await server.request('turn/start', { threadId: thread.id, input: text('go') });
  await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id, 30_000);
  return { threadId: thread.id, turnId: turn.id, outputs: outputsSince(first) };
}

/** The model's function_call_output texts in its last request: the whole thread's, each test's thread being new. */
function outputsSince(first: number): string[] {
  expect(mock.requests.length).toBeGreaterThan(first);
  const last = mock.requests.at(-1)!.body as { input: Message[] };
  return last.input.filter((i) => i.type === 'function_call_output').map((i) => normalised(i.output as string));
}

function normalised(output: string): string {
  return output.replace(/^Chunk ID: [0-9a-f]{6}\nWall time: \d+\.\d{4} seconds\n/, 'Chunk ID: <id>\nWall time: <s>\n').replace(/session ID \d+/, 'session ID <n>');
}

/** The command notifications of `itemId`, in order, with the times out of the way. */
function commandNotes(server: TestServer, itemId: string): unknown[] {
  return server.received
    .filter((m) => (m.params?.itemId === itemId || m.params?.item?.id === itemId) && String(m.method).match(/^item\/(started|completed|commandExecution\/)/))
    .map((m) => {
      const { threadId: _thread, ...params } = m.params!;
      if (params.item === undefined) return { method: m.method, params };
      const { startedAtMs: _s, completedAtMs: _c, durationMs, ...item } = params.item as Message;
      return { method: m.method, turnId: params.turnId, item: { ...item, durationMs: typeof durationMs } };
    });
}

function rolloutLines(path: string): Message[] {
  return readFileSync(path, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Message);
}

/** The rollout's tool records and turn ends, in order, as `type:call_id` (item_completed: its item's id and status). */
function toolRecords(path: string): string[] {
  return rolloutLines(path).flatMap((line) => {
    const p = line.payload;
    if (p.type === 'function_call' || p.type === 'function_call_output') return [`${p.type}:${p.call_id}`];
    if (p.type === 'item_completed' && p.item.type === 'CommandExecution') return [`item_completed:${p.item.id}:${p.item.status}:${p.item.exit_code}`];
    if (p.type === 'task_complete' || p.type === 'turn_aborted') return [p.type];
    return [];
  });
}

function sleepRunning(marker: string): boolean {
  try {
    execFileSync('pgrep', ['-f', marker]);
    return true;
  } catch {
    return false;
  }
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what} within 5 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('a command running past its yield is a session: polled to its end, its item and record come with the end, then its id is unknown', async () => {
  const server = await start();
  try {
    const { thread } = await server.request('thread/start', { cwd: workspace, approvalPolicy: 'never', sandbox: 'danger-full-access' });
    const first = mock.requests.length;
    script([
      call('c1', 'exec_command', { cmd: 'echo early; sleep 3; echo late', yield_time_ms: 1500 }),
      ([id]) => call('c2', 'write_stdin', { session_id: id, yield_time_ms: 10000 }),
      ([id]) => call('c3', 'write_stdin', { session_id: id }),
      reply('m1'),
    ]);
    const { turn } = await server.request('turn/start', { threadId: thread.id, input: text('go') });
    await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id, 20_000);
    const sessionId = server.notifications('item/started').find((n) => n.params.item.id === 'c1')!.params.item.processId as string;
    expect(outputsSince(first)).toEqual([
      'Chunk ID: <id>\nWall time: <s>\nProcess running with session ID <n>\nOriginal token count: 2\nOutput:\nearly\n',
      'Chunk ID: <id>\nWall time: <s>\nProcess exited with code 0\nOriginal token count: 2\nOutput:\nlate\n',
      `write_stdin failed: Unknown process id ${sessionId}`,
    ]);
    const item = {
      type: 'commandExecution', id: 'c1', pluginId: null, scriptPath: null, command: "/bin/bash -lc 'echo early; sleep 3; echo late'", cwd: workspace,
      processId: sessionId, source: 'unifiedExecStartup', commandActions: [{ type: 'unknown', command: 'echo early; sleep 3; echo late' }],
    };
    // A poll that saw the end tells no terminal interaction, as the reference's.
    expect(commandNotes(server, 'c1')).toEqual([
      { method: 'item/started', turnId: turn.id, item: { ...item, status: 'inProgress', aggregatedOutput: null, exitCode: null, durationMs: 'object' } },
      { method: 'item/commandExecution/outputDelta', params: { turnId: turn.id, itemId: 'c1', delta: 'early\n' } },
      { method: 'item/commandExecution/outputDelta', params: { turnId: turn.id, itemId: 'c1', delta: 'late\n' } },
      { method: 'item/completed', turnId: turn.id, item: { ...item, status: 'completed', aggregatedOutput: 'early\nlate\n', exitCode: 0, durationMs: 'number' } },
    ]);
    const path = (await server.request('thread/read', { threadId: thread.id })).thread.path as string;
    // The item's record comes before the output of the poll that saw the end.
    expect(toolRecords(path)).toEqual([
      'function_call:c1', 'function_call_output:c1', 'function_call:c2', 'item_completed:c1:completed:0', 'function_call_output:c2',
      'function_call:c3', 'function_call_output:c3', 'task_complete',
    ]);
  } finally {
    await server.close();
  }
});

test('stdin, in the sandbox: none without tty, a terminal with it; each write is a terminal interaction; Ctrl-D ends the input', async () => {
  const server = await start();
  try {
    const { threadId, turnId, outputs } = await scriptedTurn(server, 'workspace-write', [
      call('c1', 'exec_command', { cmd: 'read x; echo got $x; sleep 30', yield_time_ms: 1500 }),
      ([id]) => call('c2', 'write_stdin', { session_id: id, chars: 'abc\n' }),
      call('c3', 'exec_command', { cmd: 'read x; echo got $x; cat', tty: true, yield_time_ms: 250 }),
      ([, id]) => call('c4', 'write_stdin', { session_id: id, chars: 'abc\n', yield_time_ms: 1500 }),
      ([, id]) => call('c5', 'write_stdin', { session_id: id, chars: 'more\n', yield_time_ms: 1500 }),
      ([, id]) => call('c6', 'write_stdin', { session_id: id, chars: '\u0004', yield_time_ms: 10000 }),
      ([id]) => call('c7', 'write_stdin', { session_id: id, chars: '\u0003', yield_time_ms: 10000 }),
      reply('m1'),
    ]);
    expect(outputs).toEqual([
      // Without a terminal stdin is at its end from the start: `read` gets nothing.
      'Chunk ID: <id>\nWall time: <s>\nProcess running with session ID <n>\nOriginal token count: 1\nOutput:\ngot\n',
      'write_stdin failed: stdin is closed for this session; rerun exec_command with tty=true to keep stdin open',
      'Chunk ID: <id>\nWall time: <s>\nProcess running with session ID <n>\nOriginal token count: 0\nOutput:\n',
      // The terminal echoes what is written and ends lines with CRLF.
      'Chunk ID: <id>\nWall time: <s>\nProcess running with session ID <n>\nOriginal token count: 4\nOutput:\nabc\r\ngot abc\r\n',
      'Chunk ID: <id>\nWall time: <s>\nProcess running with session ID <n>\nOriginal token count: 3\nOutput:\nmore\r\nmore\r\n',
      'Chunk ID: <id>\nWall time: <s>\nProcess exited with code 0\nOriginal token count: 0\nOutput:\n',
      // Ctrl-C is SIGINT to the group: bash dies of it.
      'Chunk ID: <id>\nWall time: <s>\nProcess exited with code 130\nOriginal token count: 0\nOutput:\n',
    ]);
    const processOf = (id: string) => server.notifications('item/started').find((n) => n.params.item.id === id)!.params.item.processId as string;
    const interactions = server.notifications('item/commandExecution/terminalInteraction').map((n) => n.params);
    expect(interactions).toEqual([
      { threadId, turnId, itemId: 'c3', processId: processOf('c3'), stdin: 'abc\n' },
      { threadId, turnId, itemId: 'c3', processId: processOf('c3'), stdin: 'more\n' },
      { threadId, turnId, itemId: 'c3', processId: processOf('c3'), stdin: '\u0004' },
      { threadId, turnId, itemId: 'c1', processId: processOf('c1'), stdin: '\u0003' },
    ]);
    const completed = (id: string) => server.notifications('item/completed').find((n) => n.params.item.id === id)!.params.item;
    expect([completed('c1').status, completed('c1').exitCode, completed('c1').aggregatedOutput]).toEqual(['failed', 130, 'got\n']);
    expect([completed('c3').status, completed('c3').exitCode, completed('c3').aggregatedOutput]).toEqual(['completed', 0, 'abc\r\ngot abc\r\nmore\r\nmore\r\n']);
  } finally {
    await server.close();
  }
});

test("tty: a 24 x 80 terminal with the host's TERM and PAGER; Ctrl-C ends the command (exit 1) or reaches its trap; the unload kills a session on a terminal", async () => {
  const server = await TestServer.start({ modelUrl: mock.url, rootConfig: 'thread_unload_delay_secs = 0', env: { HOME: workspace, TERM: 'xterm-e2e', PAGER: 'less' } });
  try {
    const { threadId, outputs } = await scriptedTurn(server, 'danger-full-access', [
      call('c1', 'exec_command', { cmd: 'stty size; echo C=$COLUMNS L=$LINES T=$TERM P=$PAGER N=$NO_COLOR; [ -t 0 ] && [ -t 2 ] && echo on-tty; ps -o pid=,pgid=,sid= -p $$ | awk \'$1==$2 && $2==$3 {print "leader"}\'', tty: true, yield_time_ms: 10000 }),
      call('c2', 'exec_command', { cmd: 'sleep 30', tty: true, yield_time_ms: 500 }),
      ([id]) => call('c3', 'write_stdin', { session_id: id, chars: '\u0003', yield_time_ms: 10000 }),
      call('c4', 'exec_command', { cmd: 'trap "echo caught; exit 7" INT; echo armed; while :; do sleep 0.1; done', tty: true, yield_time_ms: 1500 }),
      ([, id]) => call('c5', 'write_stdin', { session_id: id, chars: '\u0003', yield_time_ms: 10000 }),
      call('c6', 'exec_command', { cmd: 'printf "\\xff\\xff\\xff\\xff"; head -c 300 /dev/zero | tr "\\0" x', tty: true, max_output_tokens: 10, yield_time_ms: 10000 }),
      call('c7', 'exec_command', { cmd: 'echo up; sleep 42.5', tty: true, yield_time_ms: 1000 }),
      reply('m1'),
    ]);
    expect(outputs).toEqual([
      'Chunk ID: <id>\nWall time: <s>\nProcess exited with code 0\nOriginal token count: 15\nOutput:\n24 80\r\nC=80 L=24 T=xterm-e2e P=less N=1\r\non-tty\r\nleader\r\n',
      'Chunk ID: <id>\nWall time: <s>\nProcess running with session ID <n>\nOriginal token count: 0\nOutput:\n',
      // The terminal turns Ctrl-C into SIGINT and echoes it; a death by signal is exit 1, as the reference's pty reports it.
      'Chunk ID: <id>\nWall time: <s>\nProcess exited with code 1\nOriginal token count: 1\nOutput:\n^C',
      'Chunk ID: <id>\nWall time: <s>\nProcess running with session ID <n>\nOriginal token count: 2\nOutput:\narmed\r\n',
      'Chunk ID: <id>\nWall time: <s>\nProcess exited with code 7\nOriginal token count: 3\nOutput:\n^Ccaught\r\n',
      'Chunk ID: <id>\nWall time: <s>\nProcess exited with code 0\nOriginal token count: 76\nOutput:\nWarning: truncated output (original token count: 78)\nTotal output lines: 1\n\n' +
        `${'\ufffd'.repeat(4)}${'x'.repeat(8)}…68 tokens truncated…${'x'.repeat(20)}`,
      'Chunk ID: <id>\nWall time: <s>\nProcess running with session ID <n>\nOriginal token count: 1\nOutput:\nup\r\n',
    ]);
    const completed = (id: string) => server.notifications('item/completed').find((n) => n.params.item.id === id)!.params.item;
    expect([completed('c2').status, completed('c2').exitCode, completed('c2').aggregatedOutput]).toEqual(['failed', 1, '^C']);
    expect(sleepRunning('sleep 42.5')).toBe(true);
    await server.request('thread/unsubscribe', { threadId });
    await server.waitForNotification('thread/closed', (p) => p.threadId === threadId, 10_000);
    await until(() => !sleepRunning('sleep 42.5'), 'the terminal session ended with its thread');
  } finally {
    await server.close();
  }
});

test('tty in the sandbox: the terminal is /dev/console inside bwrap, and Ctrl-C ends the sandbox (exit 1), not the trap inside it, as in the reference', async () => {
  const server = await start();
  try {
    const { outputs } = await scriptedTurn(server, 'workspace-write', [
      call('c1', 'exec_command', { cmd: 'stty size; tty; [ -t 0 ] && echo on-tty; echo x > f.txt; echo rc=$?', tty: true, yield_time_ms: 10000 }),
      call('c2', 'exec_command', { cmd: 'trap "echo caught; exit 7" INT; echo armed; while :; do sleep 0.1; done', tty: true, yield_time_ms: 1500 }),
      ([id]) => call('c3', 'write_stdin', { session_id: id, chars: '\u0003', yield_time_ms: 10000 }),
      reply('m1'),
    ]);
    expect(outputs).toEqual([
      'Chunk ID: <id>\nWall time: <s>\nProcess exited with code 0\nOriginal token count: 9\nOutput:\n24 80\r\n/dev/console\r\non-tty\r\nrc=0\r\n',
      'Chunk ID: <id>\nWall time: <s>\nProcess running with session ID <n>\nOriginal token count: 2\nOutput:\narmed\r\n',
      'Chunk ID: <id>\nWall time: <s>\nProcess exited with code 1\nOriginal token count: 1\nOutput:\n^C',
    ]);
  } finally {
    await server.close();
  }
});

test('a session outlives its turn and ends between turns: item/completed under its turn, the record after that turn, a cold read shows it done', async () => {
  const home = mkdtempSync(join(root, 'home-'));
  let server = await start(home);
  let threadId: string;
  let turnId: string;
  try {
    const { thread } = await server.request('thread/start', { cwd: workspace, approvalPolicy: 'never', sandbox: 'danger-full-access' });
    threadId = thread.id;
    script([call('c1', 'exec_command', { cmd: 'sleep 0.8; echo later', yield_time_ms: 250 }), reply('m1')]);
    const { turn } = await server.request('turn/start', { threadId, input: text('go') });
    turnId = turn.id;
    await server.waitForNotification('turn/completed', (p) => p.turn.id === turnId, 20_000);
    const done = await server.waitForNotification('item/completed', (p) => p.item.id === 'c1', 10_000);
    expect([done.turnId, done.item.status, done.item.exitCode, done.item.aggregatedOutput]).toEqual([turnId, 'completed', 0, 'later\n']);
    const methods = server.received.map((m) => m.method);
    expect(methods.lastIndexOf('item/completed')).toBeGreaterThan(methods.indexOf('turn/completed'));
    const path = (await server.request('thread/read', { threadId })).thread.path as string;
    await until(() => toolRecords(path).length === 4, 'the late record is written');
    expect(toolRecords(path)).toEqual(['function_call:c1', 'function_call_output:c1', 'task_complete', 'item_completed:c1:completed:0']);
    const late = rolloutLines(path).at(-1)!.payload;
    expect([late.turn_id, late.item.aggregated_output]).toEqual([turnId, 'later\n']);
  } finally {
    await server.close();
  }
  server = await start(home);
  try {
    const { thread } = await server.request('thread/read', { threadId: threadId!, includeTurns: true });
    const item = (thread.turns as Message[])[0]!.items.find((i: Message) => i.id === 'c1');
    expect([thread.turns[0].id, item.status, item.exitCode, item.aggregatedOutput]).toEqual([turnId!, 'completed', 0, 'later\n']);
  } finally {
    await server.close();
  }
});

test('an interrupt leaves a session running, a later turn polls it, and the thread unloading ends it', async () => {
  const server = await start();
  try {
    const { thread } = await server.request('thread/start', { cwd: workspace, approvalPolicy: 'never', sandbox: 'danger-full-access' });
    const first = mock.requests.length;
    script([call('c1', 'exec_command', { cmd: 'echo up; sleep 41.5', yield_time_ms: 20000 })]);
    const t1 = (await server.request('turn/start', { threadId: thread.id, input: text('go') })).turn;
    await until(() => sleepRunning('sleep 41.5'), 'the command started');
    await server.request('turn/interrupt', { threadId: thread.id, turnId: t1.id });
    expect((await server.waitForNotification('turn/completed', (p) => p.turn.id === t1.id, 10_000)).turn.status).toBe('interrupted');
    expect(sleepRunning('sleep 41.5')).toBe(true);
    const sessionId = Number(server.notifications('item/started').find((n) => n.params.item.id === 'c1')!.params.item.processId);
    script([call('c2', 'write_stdin', { session_id: sessionId, chars: '', yield_time_ms: 250 }), reply('m2')]);
    const t2 = (await server.request('turn/start', { threadId: thread.id, input: text('poll') })).turn;
    await server.waitForNotification('turn/completed', (p) => p.turn.id === t2.id, 20_000);
    const input = (mock.requests.at(-1)!.body as { input: Message[] }).input;
    const outputs = input.filter((i) => i.type === 'function_call_output').map((i) => normalised(i.output as string).replace(/^Wall time: [\d.]+ seconds/, 'Wall time: <s> seconds'));
    expect(outputs).toEqual([
      'Wall time: <s> seconds\naborted by user',
      // The poll waits 5 s at least (an empty poll), and gets what came meanwhile.
      'Chunk ID: <id>\nWall time: <s>\nProcess running with session ID <n>\nOriginal token count: 1\nOutput:\nup\n',
    ]);
    expect(mock.requests.length).toBe(first + 3);
    expect(server.notifications('item/completed').some((n) => n.params.item.id === 'c1')).toBe(false);
    await server.request('thread/unsubscribe', { threadId: thread.id });
    await server.waitForNotification('thread/closed', (p) => p.threadId === thread.id, 10_000);
    await until(() => !sleepRunning('sleep 41.5'), 'the session ended with its thread');
  } finally {
    await server.close();
  }
});
