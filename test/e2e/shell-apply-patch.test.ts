// `apply_patch` end to end, where it is turned on (`[features] apply_patch_tool = true`; the
// reference offers it only to models whose metadata asks for it): offered after the command
// tools, a patch becomes a `fileChange` item and the model gets a `custom_tool_call_output`,
// a bad patch makes no item, and writes stay inside the thread's sandbox. Expected shapes are
// the reference's (codex-cli 0.171.0 with gpt-5.5, probed: docs/tools.md, Commands).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { messageItem, startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { APPLY_PATCH_SPEC, EXEC_COMMAND_SPEC, WRITE_STDIN_SPEC } from '../../src/main/tools/shell/shell-tool-specs.js';
import { TestServer, type Message } from '../helpers/test-server.js';

let mock: MockModel;
let root: string;
beforeAll(async () => {
  mock = await startMockModel({ reply: 'Done' });
  root = mkdtempSync(join(tmpdir(), 'thread-host-patch-'));
});
afterAll(() => {
  mock.close();
  rmSync(root, { recursive: true, force: true });
});

const ALL = '*** Begin Patch\n*** Add File: new.txt\n+hello\n+world\n*** Update File: upd.txt\n@@\n line1\n-line2\n+LINE2\n line3\n*** Delete File: del.txt\n*** Update File: mv.txt\n*** Move to: sub/moved.txt\n@@\n alpha\n-beta\n+BETA\n*** End Patch';
const customCall = (callId: string, input: string) => ({ type: 'custom_tool_call', id: `ctc_${callId}`, call_id: callId, name: 'apply_patch', input });
const ctcoId = expect.stringMatching(/^ctco_[0-9a-f-]{36}$/);

function workspace(name: string): string {
  const cwd = join(root, name);
  mkdirSync(cwd, { recursive: true });
  writeFileSync(join(cwd, 'upd.txt'), 'line1\nline2\nline3\n');
  writeFileSync(join(cwd, 'del.txt'), 'bye\n');
  writeFileSync(join(cwd, 'mv.txt'), 'alpha\nbeta\n');
  return cwd;
}

async function patchTurn(cwd: string, patch: string, sandbox = 'workspace-write'): Promise<{ server: TestServer; threadId: string; turnId: string; first: number }> {
  const server = await TestServer.start({ modelUrl: mock.url, rootConfig: 'features.apply_patch_tool = true' });
  const { thread } = await server.request('thread/start', { cwd, sandbox });
  const first = mock.requests.length;
  mock.enqueue({ kind: 'output', items: [customCall('call-1', patch)] });
  mock.enqueue({ kind: 'output', items: [messageItem('msg-1', 'done')] });
  const { turn } = await server.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'patch it' }] });
  await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id, 15_000);
  return { server, threadId: thread.id, turnId: turn.id, first };
}

const lastInput = (index: number) => (mock.requests[index]!.body as { input: Message[] }).input.slice(-2);

test('a patch: offered, a fileChange item, the files written, the custom output and the rollout record', async () => {
  const cwd = workspace('all');
  const { server, threadId, turnId, first } = await patchTurn(cwd, ALL);
  try {
    expect((mock.requests[first]!.body as Message).tools).toEqual([EXEC_COMMAND_SPEC, WRITE_STDIN_SPEC, APPLY_PATCH_SPEC]);
    const changes = [
      { path: `${cwd}/del.txt`, kind: { type: 'delete' }, diff: 'bye\n' },
      { path: `${cwd}/mv.txt`, kind: { type: 'update', move_path: `${cwd}/sub/moved.txt` }, diff: `@@ -1,2 +1,2 @@\n alpha\n-beta\n+BETA\n\n\nMoved to: ${cwd}/sub/moved.txt` },
      { path: `${cwd}/new.txt`, kind: { type: 'add' }, diff: 'hello\nworld\n' },
      { path: `${cwd}/upd.txt`, kind: { type: 'update', move_path: null }, diff: '@@ -1,3 +1,3 @@\n line1\n-line2\n+LINE2\n line3\n' },
    ];
    const notices = server.received.filter((m) => m.params?.item?.id === 'call-1').map((m) => [m.method, m.params.item]);
    expect(notices).toEqual([
      ['item/started', { type: 'fileChange', id: 'call-1', changes, status: 'inProgress', startedAtMs: expect.any(Number), completedAtMs: null }],
      ['item/completed', { type: 'fileChange', id: 'call-1', changes, status: 'completed', startedAtMs: expect.any(Number), completedAtMs: expect.any(Number) }],
    ]);
    expect([existsSync(join(cwd, 'del.txt')), existsSync(join(cwd, 'mv.txt')), readFileSync(join(cwd, 'sub/moved.txt'), 'utf8'), readFileSync(join(cwd, 'new.txt'), 'utf8'), readFileSync(join(cwd, 'upd.txt'), 'utf8')])
      .toEqual([false, false, 'alpha\nBETA\n', 'hello\nworld\n', 'line1\nLINE2\nline3\n']);
    const summary = 'Success. Updated the following files:\nA new.txt\nM upd.txt\nM sub/moved.txt\nD del.txt\n';
    const output = expect.stringMatching(new RegExp(`^Exit code: 0\\nWall time: \\d+(\\.\\d)? seconds\\nOutput:\\n${summary.replace(/\./g, '\\.')}$`));
    expect(lastInput(first + 1)).toEqual([
      { type: 'custom_tool_call', id: 'ctc_call-1', call_id: 'call-1', name: 'apply_patch', input: ALL },
      { type: 'custom_tool_call_output', id: ctcoId, call_id: 'call-1', output },
    ]);
    const path = (await server.request('thread/read', { threadId })).thread.path as string;
    const records = readFileSync(path, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Message);
    const record = records.find((r) => r.payload.item?.type === 'FileChange')!.payload;
    expect(record).toEqual({
      type: 'item_completed', thread_id: threadId, turn_id: turnId,
      item: {
        type: 'FileChange', id: 'call-1',
        changes: {
          [`${cwd}/new.txt`]: { type: 'add', content: 'hello\nworld\n' },
          [`${cwd}/upd.txt`]: { type: 'update', unified_diff: '@@ -1,3 +1,3 @@\n line1\n-line2\n+LINE2\n line3\n', move_path: null },
          [`${cwd}/del.txt`]: { type: 'delete', content: 'bye\n' },
          [`${cwd}/mv.txt`]: { type: 'update', unified_diff: '@@ -1,2 +1,2 @@\n alpha\n-beta\n+BETA\n', move_path: `${cwd}/sub/moved.txt` },
        },
        status: 'completed', stdout: summary, stderr: '',
      },
      started_at_ms: expect.any(Number), completed_at_ms: expect.any(Number),
    });
    expect(records.find((r) => r.payload.type === 'custom_tool_call_output')!.payload).toMatchObject({ type: 'custom_tool_call_output', id: ctcoId, call_id: 'call-1', output });
    // Read back, the item is the live one.
    const live = (await server.request('thread/read', { threadId, includeTurns: true })).thread.turns[0].items[1];
    expect(live).toEqual(notices[1]![1]);
  } finally {
    await server.close();
  }
});

test('a patch that does not parse or apply makes no item and tells the model why', async () => {
  const cwd = workspace('bad');
  for (const [patch, text] of [
    ['not a patch', "apply_patch verification failed: invalid patch: The first line of the patch must be '*** Begin Patch'"],
    ['*** Begin Patch\n*** Update File: upd.txt\n@@\n nothere\n-line2\n+LINE2\n*** End Patch', `apply_patch verification failed: Failed to find expected lines in ${cwd}/upd.txt:\nnothere\nline2`],
  ]) {
    const { server, first } = await patchTurn(cwd, patch!);
    try {
      expect(server.received.filter((m) => m.params?.item?.type === 'fileChange')).toEqual([]);
      expect(lastInput(first + 1)[1]).toEqual({ type: 'custom_tool_call_output', id: ctcoId, call_id: 'call-1', output: text });
    } finally {
      await server.close();
    }
  }
  expect(readFileSync(join(cwd, 'upd.txt'), 'utf8')).toBe('line1\nline2\nline3\n');
});

test('a patch outside the writable roots is refused and writes nothing; not offered without the switch', async () => {
  const cwd = workspace('outside');
  const target = `/var/tmp/thread-host-patch-${process.pid}.txt`;
  const { server, first } = await patchTurn(cwd, `*** Begin Patch\n*** Add File: ${target}\n+outside\n*** End Patch`);
  try {
    expect(lastInput(first + 1)[1]).toEqual({ type: 'custom_tool_call_output', id: ctcoId, call_id: 'call-1', output: `apply_patch rejected: ${target} is outside the writable roots of the thread's sandbox` });
    expect(existsSync(target)).toBe(false);
  } finally {
    await server.close();
  }
  const plain = await TestServer.start({ modelUrl: mock.url });
  try {
    const { thread } = await plain.request('thread/start', { cwd });
    const next = mock.requests.length;
    mock.enqueue({ kind: 'output', items: [messageItem('msg-1', 'done')] });
    const { turn } = await plain.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'hi' }] });
    await plain.waitForNotification('turn/completed', (p) => p.turn.id === turn.id);
    expect((mock.requests[next]!.body as Message).tools).toEqual([EXEC_COMMAND_SPEC, WRITE_STDIN_SPEC]);
  } finally {
    await plain.close();
  }
});
