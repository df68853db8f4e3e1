// The host's command tools (`exec_command`, `write_stdin`) end to end against a real host and
// the mock model calling them: what the model is offered, the `commandExecution` item and its
// deltas, the model's next input, the rollout records, bad arguments, the sandbox (sessions:
// exec-sessions.test.ts). Expected shapes are the reference's (codex-cli 0.171.0,
// probed: docs/tools.md, Commands).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { functionCallItem, messageItem, startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { EXEC_COMMAND_SPEC, WRITE_STDIN_SPEC } from '../../src/main/tools/shell/shell-tool-specs.js';
import { TestServer, type Message } from '../helpers/test-server.js';

let mock: MockModel;
let workspace: string;
beforeAll(async () => {
  mock = await startMockModel({ reply: 'Done' });
  workspace = mkdtempSync(join(tmpdir(), 'thread-host-shell-ws-'));
  execFileSync('/bin/sh', ['-c', `printf 'one\\ntwo\\nthree\\n' > ${workspace}/README.md`]);
});
afterAll(() => {
  mock.close();
  rmSync(workspace, { recursive: true, force: true });
});

// The login shell reads the user's profile; a home of its own keeps it quiet in every sandbox.
const start = (options: Parameters<typeof TestServer.start>[0] = {}) => TestServer.start({ modelUrl: mock.url, env: { HOME: workspace }, ...options });
const text = (value: string) => [{ type: 'text', text: value }];
const chunkText = (code: number, output: string) =>
  expect.stringMatching(new RegExp(`^Chunk ID: [0-9a-f]{6}\\nWall time: \\d+\\.\\d{4} seconds\\nProcess exited with code ${code}\\nOriginal token count: ${Math.ceil(Buffer.byteLength(output) / 4)}\\nOutput:\\n${escape(output)}$`));
const fcoId = expect.stringMatching(/^fco_[0-9a-f-]{36}$/);

function escape(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The model's follow-up input of request `index`: everything after the user's last message. */
function followUp(index: number): unknown[] {
  const input = (mock.requests[index]!.body as { input: Array<{ type: string; role?: string }> }).input;
  let last = input.length - 1;
  while (last >= 0 && !(input[last]!.type === 'message' && input[last]!.role === 'user')) last -= 1;
  return input.slice(last + 1);
}

async function runTurn(server: TestServer, threadId: string, items: unknown[][]): Promise<{ turn: Message; first: number }> {
  const first = mock.requests.length;
  for (const output of items) mock.enqueue({ kind: 'output', items: output });
  const { turn } = await server.request('turn/start', { threadId, input: text('run it') });
  const completed = await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id, 20_000);
  return { turn: completed.turn, first };
}

function rolloutRecords(path: string): Message[] {
  return readFileSync(path, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Message);
}

/** The finished item `id` of the server's notifications. */
const completedItem = (server: TestServer, id: string): Message | undefined => server.notifications('item/completed').find((n) => n.params.item.id === id)?.params.item;

/** The outputs the model was given in request `index`, in order. */
const modelOutputs = (index: number): Message[] => followUp(index).filter((item) => (item as Message).type === 'function_call_output') as Message[];

const itemNotices = (server: TestServer, id: string) =>
  server.received.filter((m) => 'method' in m && (m.params?.item?.id === id || m.params?.itemId === id));

test('exec_command runs a command: item, deltas, the model text and the rollout as the reference has them', async () => {
  const home = mkdtempSync(join(tmpdir(), 'thread-host-shell-home-'));
  const server = await start({ home });
  try {
    const { thread } = await server.request('thread/start', { cwd: workspace });
    const { turn, first } = await runTurn(server, thread.id, [[functionCallItem('call-1', 'exec_command', { cmd: 'echo hi' })], [messageItem('msg-1', 'done')]]);
    expect(turn.status).toBe('completed');
    const body = mock.requests[first]!.body as Message;
    expect(body.tools).toEqual([EXEC_COMMAND_SPEC, WRITE_STDIN_SPEC]);

    const started = { type: 'commandExecution', id: 'call-1', pluginId: null, scriptPath: null, command: "/bin/bash -lc 'echo hi'", cwd: workspace, processId: expect.stringMatching(/^\d+$/), source: 'unifiedExecStartup', status: 'inProgress', commandActions: [{ type: 'unknown', command: 'echo hi' }], aggregatedOutput: null, exitCode: null, durationMs: null, startedAtMs: expect.any(Number), completedAtMs: null };
    const notices = itemNotices(server, 'call-1').map((m) => ({ method: m.method, params: m.params }));
    expect(notices).toEqual([
      { method: 'item/started', params: { item: started, threadId: thread.id, turnId: turn.id, startedAtMs: expect.any(Number) } },
      { method: 'item/commandExecution/outputDelta', params: { threadId: thread.id, turnId: turn.id, itemId: 'call-1', delta: 'hi\n' } },
      {
        method: 'item/completed',
        params: { item: { ...started, status: 'completed', aggregatedOutput: 'hi\n', exitCode: 0, durationMs: expect.any(Number), completedAtMs: expect.any(Number) }, threadId: thread.id, turnId: turn.id, contentTokenCount: null, completedAtMs: expect.any(Number) },
      },
    ]);
    const processId = notices[0]!.params.item.processId as string;
    expect(notices[2]!.params.item.processId).toBe(processId);
    expect(followUp(first + 1)).toEqual([
      { type: 'function_call', id: 'fc_call-1', name: 'exec_command', arguments: '{"cmd":"echo hi"}', call_id: 'call-1' },
      { type: 'function_call_output', id: fcoId, call_id: 'call-1', output: chunkText(0, 'hi\n') },
    ]);

    const path = (await server.request('thread/read', { threadId: thread.id })).thread.path as string;
    const calls = rolloutRecords(path).filter((r) => ['function_call', 'function_call_output'].includes(r.payload.type) || r.payload.item?.type === 'CommandExecution');
    expect(calls.map((r) => r.payload)).toEqual([
      { type: 'function_call', id: 'fc_call-1', name: 'exec_command', arguments: '{"cmd":"echo hi"}', call_id: 'call-1', internal_chat_message_metadata_passthrough: { turn_id: turn.id } },
      {
        type: 'item_completed', thread_id: thread.id, turn_id: turn.id,
        item: { type: 'CommandExecution', id: 'call-1', process_id: processId, command: ['/bin/bash', '-lc', 'echo hi'], cwd: `file://${workspace}`, parsed_cmd: [{ type: 'unknown', cmd: 'echo hi' }], source: 'unified_exec_startup', status: 'completed', aggregated_output: 'hi\n', exit_code: 0, duration: { secs: expect.any(Number), nanos: expect.any(Number) } },
        started_at_ms: expect.any(Number), completed_at_ms: expect.any(Number),
      },
      { type: 'function_call_output', id: fcoId, call_id: 'call-1', output: chunkText(0, 'hi\n'), internal_chat_message_metadata_passthrough: { turn_id: turn.id, create_time: expect.any(Number) } },
    ]);

    // Read back after a restart, the item is the live one.
    const live = (await server.request('thread/read', { threadId: thread.id, includeTurns: true })).thread.turns;
    await server.close();
    const again = await start({ home, keepConfig: true });
    try {
      const read = await again.request('thread/read', { threadId: thread.id, includeTurns: true });
      expect(read.thread.turns).toEqual(live);
      expect(live[0].items.map((item: Message) => item.type)).toEqual(['userMessage', 'commandExecution', 'agentMessage']);
    } finally {
      await again.close();
    }
  } finally {
    await server.close().catch(() => undefined);
    rmSync(home, { recursive: true, force: true });
  }
});

test('a failing command, bad arguments, write_stdin, and the parsed command actions', async () => {
  const server = await start();
  try {
    const { thread } = await server.request('thread/start', { cwd: workspace });
    const calls = [
      functionCallItem('call-fail', 'exec_command', { cmd: 'echo oops >&2; echo out; exit 3' }),
      functionCallItem('call-bad', 'exec_command', { command: ['bash', '-lc', 'echo hi'] }),
      functionCallItem('call-stdin', 'write_stdin', { session_id: 4242, chars: '' }),
      functionCallItem('call-cat', 'exec_command', { cmd: 'cat README.md' }),
      functionCallItem('call-sed', 'exec_command', { cmd: 'sed -n 1,2p README.md' }),
      functionCallItem('call-head', 'exec_command', { cmd: 'head -n 3 README.md | wc -l' }),
      functionCallItem('call-ls', 'exec_command', { cmd: 'cd /tmp && ls -la' }),
      functionCallItem('call-rg', 'exec_command', { cmd: 'grep -rn one .' }),
      functionCallItem('call-find', 'exec_command', { cmd: 'find . -name "*.md"' }),
      functionCallItem('call-quiet', 'exec_command', { cmd: 'true' }),
    ];
    const { turn, first } = await runTurn(server, thread.id, [calls, [messageItem('msg-1', 'done')]]);
    expect(turn.status).toBe('completed');
    const completed = (id: string) => completedItem(server, id);
    expect(completed('call-fail')).toMatchObject({ status: 'failed', exitCode: 3, aggregatedOutput: expect.stringMatching(/^(oops\nout\n|out\noops\n)$/) });
    // A command that printed nothing completes with no output at all, as the reference's; its record keeps "".
    expect(completed('call-quiet')).toMatchObject({ status: 'completed', exitCode: 0, aggregatedOutput: null });
    const path = (await server.request('thread/read', { threadId: thread.id })).thread.path as string;
    expect(rolloutRecords(path).find((r) => r.payload.item?.id === 'call-quiet')!.payload.item.aggregated_output).toBe('');
    // No item for a call whose arguments do not decode, nor for write_stdin.
    expect(completed('call-bad')).toBeUndefined();
    expect(completed('call-stdin')).toBeUndefined();
    const actions = Object.fromEntries(['call-cat', 'call-sed', 'call-head', 'call-ls', 'call-rg', 'call-find'].map((id) => [id, completed(id)!.commandActions]));
    expect(actions).toEqual({
      'call-cat': [{ type: 'read', command: 'cat README.md', name: 'README.md', path: `${workspace}/README.md` }],
      'call-sed': [{ type: 'read', command: "sed -n '1,2p' README.md", name: 'README.md', path: `${workspace}/README.md` }],
      'call-head': [{ type: 'read', command: 'head -n 3 README.md', name: 'README.md', path: `${workspace}/README.md` }],
      'call-ls': [{ type: 'listFiles', command: 'ls -la', path: null }],
      'call-rg': [{ type: 'search', command: 'grep -rn one .', query: 'one', path: '.' }],
      'call-find': [{ type: 'search', command: "find . -name '*.md'", query: '*.md', path: '.' }],
    });
    expect(modelOutputs(first + 1).map((o) => [o.call_id, o.output])).toEqual([
      ['call-fail', expect.stringMatching(/^Chunk ID: [0-9a-f]{6}\nWall time: \d+\.\d{4} seconds\nProcess exited with code 3\nOriginal token count: 3\nOutput:\n(oops\nout\n|out\noops\n)$/)],
      ['call-bad', 'failed to parse function arguments: missing field `cmd` at line 1 column 36'],
      ['call-stdin', 'write_stdin failed: Unknown process id 4242'],
      ['call-cat', chunkText(0, 'one\ntwo\nthree\n')],
      ['call-sed', chunkText(0, 'one\ntwo\n')],
      ['call-head', chunkText(0, '3\n')],
      ['call-ls', expect.stringContaining('Process exited with code 0')],
      ['call-rg', chunkText(0, './README.md:1:one\n')],
      ['call-find', chunkText(0, './README.md\n')],
      ['call-quiet', chunkText(0, '')],
    ]);
  } finally {
    await server.close();
  }
});

test('long output streams in full and reaches the model cut to 10000 bytes behind the warning', async () => {
  const server = await start();
  try {
    const { thread } = await server.request('thread/start', { cwd: workspace });
    const { first } = await runTurn(server, thread.id, [[functionCallItem('call-long', 'exec_command', { cmd: 'seq 1 100000' })], [messageItem('msg-1', 'done')]]);
    const full = Array.from({ length: 100_000 }, (_, i) => `${i + 1}\n`).join('');
    const deltas = server.notifications('item/commandExecution/outputDelta').filter((n) => n.params.itemId === 'call-long').map((n) => n.params.delta as string);
    expect(deltas.join('')).toBe(full);
    expect(Buffer.byteLength(deltas[0]!)).toBe(8192);
    expect(deltas.slice(1, -1).every((d) => Buffer.byteLength(d) === 4096)).toBe(true);
    expect(completedItem(server, 'call-long')!.aggregatedOutput).toBe(full);
    const output = (followUp(first + 1)[1] as Message).output as string;
    const head = full.slice(0, 5000);
    const tail = full.slice(-5000);
    expect(output).toMatch(/^Chunk ID: [0-9a-f]{6}\nWall time: \d+\.\d{4} seconds\nProcess exited with code 0\nOriginal token count: 147224\nOutput:\n/);
    expect(output.slice(output.indexOf('Output:\n') + 8)).toBe(`Warning: truncated output (original token count: 147224)\nTotal output lines: 100000\n\n${head}…578895 chars truncated…${tail}`);
  } finally {
    await server.close();
  }
});

test('[features] shell_tool = false offers no command tools', async () => {
  const server = await start({ rootConfig: 'features.shell_tool = false' });
  try {
    const { thread } = await server.request('thread/start', { cwd: workspace });
    const { first } = await runTurn(server, thread.id, [[messageItem('msg-1', 'done')]]);
    expect((mock.requests[first]!.body as Message).tools).toEqual([]);
  } finally {
    await server.close();
  }
});

test('the sandbox: workspace-write refuses a write outside the workspace and allows one inside', async () => {
  const server = await start();
  try {
    const { thread } = await server.request('thread/start', { cwd: workspace, sandbox: 'workspace-write' });
    const { first } = await runTurn(server, thread.id, [
      [functionCallItem('call-out', 'exec_command', { cmd: 'echo x > /var/tmp/thread-host-shell-outside.txt' }), functionCallItem('call-in', 'exec_command', { cmd: 'echo x > inside.txt && cat inside.txt' })],
      [messageItem('msg-1', 'done')],
    ]);
    const completed = (id: string) => completedItem(server, id);
    expect(completed('call-out')).toMatchObject({ status: 'failed', exitCode: 1, aggregatedOutput: '/bin/bash: line 1: /var/tmp/thread-host-shell-outside.txt: Read-only file system\n' });
    expect(completed('call-in')).toMatchObject({ status: 'completed', exitCode: 0, aggregatedOutput: 'x\n' });
    expect(modelOutputs(first + 1).map((o) => o.output)).toEqual([chunkText(1, '/bin/bash: line 1: /var/tmp/thread-host-shell-outside.txt: Read-only file system\n'), chunkText(0, 'x\n')]);
  } finally {
    await server.close();
  }
});

/** Waits until a `sleep 37.25` runs (or no longer does). */
