// `apply_patch` end to end, where it is turned on (`[features] apply_patch_tool = true`; the
// reference offers it only to models whose metadata asks for it): offered after the command
// tools, a patch becomes a `fileChange` item and the model gets a `custom_tool_call_output`,
// a bad patch makes no item, and a write the sandbox does not allow is asked for (on-request)
// or refused (never), as the policy lets the host ask (untrusted: every patch; granular: by
// its sandbox_approval). Expected shapes are
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

/** One turn whose model sends `patch`, then a message; each patch approval is answered with `decision`. */
async function patchTurn(cwd: string, patch: string, sandbox = 'workspace-write', options: { approvalPolicy?: unknown; decision?: string; args?: string[] } = {}): Promise<{ server: TestServer; threadId: string; turnId: string; first: number; turn: Message }> {
  const server = await TestServer.start({ modelUrl: mock.url, rootConfig: 'features.apply_patch_tool = true', ...(options.args === undefined ? {} : { args: options.args }) });
  const { thread } = await server.request('thread/start', { cwd, sandbox, ...(options.approvalPolicy === undefined ? {} : { approvalPolicy: options.approvalPolicy }) });
  const first = mock.requests.length;
  mock.enqueue({ kind: 'output', items: [customCall('call-1', patch)] });
  mock.enqueue({ kind: 'output', items: [messageItem('msg-1', 'done')] });
  let answered = 0;
  const answering = setInterval(() => {
    const asked = server.received.filter((m) => m.method === 'item/fileChange/requestApproval' && 'id' in m);
    for (const request of asked.slice(answered)) server.sendText(JSON.stringify({ id: request.id, result: { decision: options.decision } }));
    answered = asked.length;
  }, 10);
  try {
    const { turn } = await server.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'patch it' }] });
    const completed = await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id, 15_000);
    return { server, threadId: thread.id, turnId: turn.id, first, turn: completed.turn };
  } finally {
    clearInterval(answering);
  }
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

test('under approval policy never a patch outside the writable roots is refused and writes nothing; not offered without the switch', async () => {
  const cwd = workspace('outside');
  const target = `/var/tmp/thread-host-patch-${process.pid}.txt`;
  rmSync(target, { force: true });
  const { server, first } = await patchTurn(cwd, `*** Begin Patch\n*** Add File: ${target}\n+outside\n*** End Patch`, 'workspace-write', { approvalPolicy: 'never' });
  try {
    expect(lastInput(first + 1)[1]).toEqual({ type: 'custom_tool_call_output', id: ctcoId, call_id: 'call-1', output: 'patch rejected: writing outside of the project; rejected by user approval settings' });
    expect(existsSync(target)).toBe(false);
    expect(server.received.filter((m) => m.method === 'item/fileChange/requestApproval' || m.params?.item?.type === 'fileChange')).toEqual([]);
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

// Approvals (the reference's captures s4-onreq-*, s4-ro-inside, s4-never-all).
const outsideTarget = `/var/tmp/thread-host-patch-approval-${process.pid}.txt`;
const OUTSIDE = `*** Begin Patch\n*** Add File: ${outsideTarget}\n+outside\n*** End Patch`;
const outsideChanges = [{ path: outsideTarget, kind: { type: 'add' }, diff: 'outside\n' }];
const fileItem = (changes: Message[], more: Message) => ({ type: 'fileChange', id: 'call-1', changes, status: 'inProgress', startedAtMs: expect.any(Number), completedAtMs: null, ...more });

/** The turn's messages about the patch, in order: item notices, the approval, its resolution and the thread's status (the host sends no turn/diff/updated: docs/tools.md, Patches). */
function trail(r: { server: TestServer; threadId: string }): Message[] {
  return r.server.received
    .filter((m) => m.params?.item?.id === 'call-1' || m.params?.itemId === 'call-1' || m.method === 'serverRequest/resolved' || m.method === 'thread/status/changed')
    .map((m) => ('id' in m ? { method: m.method, id: m.id, params: m.params } : { method: m.method, params: m.params }));
}

function askedTrail(r: { threadId: string; turnId: string }, end: Message[]): Message[] {
  const base = { threadId: r.threadId, turnId: r.turnId };
  return [
    { method: 'thread/status/changed', params: { threadId: r.threadId, status: { type: 'active', activeFlags: [] } } },
    { method: 'item/started', params: { item: fileItem(outsideChanges, {}), ...base, startedAtMs: expect.any(Number) } },
    { method: 'thread/status/changed', params: { threadId: r.threadId, status: { type: 'active', activeFlags: ['waitingOnApproval'] } } },
    { method: 'item/fileChange/requestApproval', id: 0, params: { ...base, itemId: 'call-1', startedAtMs: expect.any(Number), reason: null, grantRoot: null } },
    { method: 'serverRequest/resolved', params: { threadId: r.threadId, requestId: 0 } },
    { method: 'thread/status/changed', params: { threadId: r.threadId, status: { type: 'active', activeFlags: [] } } },
    ...end,
    { method: 'thread/status/changed', params: { threadId: r.threadId, status: { type: 'idle' } } },
  ];
}

async function recordsOf(server: TestServer, threadId: string): Promise<Message[]> {
  const path = (await server.request('thread/read', { threadId })).thread.path as string;
  return readFileSync(path, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Message);
}

const successText = (summary: string) => expect.stringMatching(new RegExp(`^Exit code: 0\\nWall time: \\d+(\\.\\d)? seconds\\nOutput:\\n${summary.replace(/\./g, '\\.')}$`));
test('on-request, outside the writable roots, accept: asked, resolved, then applied', async () => {
  rmSync(outsideTarget, { force: true });
  const cwd = workspace('out-accept');
  const r = await patchTurn(cwd, OUTSIDE, 'workspace-write', { approvalPolicy: 'on-request', decision: 'accept' });
  try {
    const base = { threadId: r.threadId, turnId: r.turnId };
    expect(trail(r)).toEqual(askedTrail(r, [
      { method: 'item/completed', params: { item: fileItem(outsideChanges, { status: 'completed', completedAtMs: expect.any(Number) }), ...base, contentTokenCount: null, completedAtMs: expect.any(Number) } },
    ]));
    expect(readFileSync(outsideTarget, 'utf8')).toBe('outside\n');
    const summary = `Success. Updated the following files:\nA ${outsideTarget}\n`;
    expect(lastInput(r.first + 1)[1]).toEqual({ type: 'custom_tool_call_output', id: ctcoId, call_id: 'call-1', output: successText(summary) });
    expect(r.turn).toMatchObject({ status: 'completed' });
    const record = (await recordsOf(r.server, r.threadId)).find((rec) => rec.payload.item?.type === 'FileChange')!.payload;
    expect(record.item).toEqual({ type: 'FileChange', id: 'call-1', changes: { [outsideTarget]: { type: 'add', content: 'outside\n' } }, status: 'completed', stdout: summary, stderr: '' });
  } finally {
    await r.server.close();
    rmSync(outsideTarget, { force: true });
  }
});

test('on-request, outside the writable roots, decline: the item ends declined, the model is told, the turn goes on', async () => {
  rmSync(outsideTarget, { force: true });
  const cwd = workspace('out-decline');
  const r = await patchTurn(cwd, OUTSIDE, 'workspace-write', { approvalPolicy: 'on-request', decision: 'decline' });
  try {
    const base = { threadId: r.threadId, turnId: r.turnId };
    expect(trail(r)).toEqual(askedTrail(r, [
      { method: 'item/completed', params: { item: fileItem(outsideChanges, { status: 'declined', completedAtMs: expect.any(Number) }), ...base, contentTokenCount: null, completedAtMs: expect.any(Number) } },
    ]));
    expect(existsSync(outsideTarget)).toBe(false);
    expect(lastInput(r.first + 1)).toEqual([
      { type: 'custom_tool_call', id: 'ctc_call-1', call_id: 'call-1', name: 'apply_patch', input: OUTSIDE },
      { type: 'custom_tool_call_output', id: ctcoId, call_id: 'call-1', output: 'patch rejected by user' },
    ]);
    expect(r.turn).toMatchObject({ status: 'completed' });
    const records = await recordsOf(r.server, r.threadId);
    expect(records.find((rec) => rec.payload.item?.type === 'FileChange')!.payload).toEqual({
      type: 'item_completed', thread_id: r.threadId, turn_id: r.turnId,
      item: { type: 'FileChange', id: 'call-1', changes: { [outsideTarget]: { type: 'add', content: 'outside\n' } }, status: 'declined', stdout: '', stderr: 'patch rejected by user' },
      started_at_ms: expect.any(Number), completed_at_ms: expect.any(Number),
    });
    expect(records.find((rec) => rec.payload.type === 'custom_tool_call_output')!.payload).toMatchObject({ type: 'custom_tool_call_output', id: ctcoId, call_id: 'call-1', output: 'patch rejected by user' });
  } finally {
    await r.server.close();
  }
});

test('on-failure in the configuration is on-request, as in the reference: a patch outside the writable roots is asked for', async () => {
  rmSync(outsideTarget, { force: true });
  const cwd = workspace('out-on-failure');
  const r = await patchTurn(cwd, OUTSIDE, 'workspace-write', { decision: 'decline', args: ['-c', 'approval_policy="on-failure"'] });
  try {
    const base = { threadId: r.threadId, turnId: r.turnId };
    expect(trail(r)).toEqual(askedTrail(r, [
      { method: 'item/completed', params: { item: fileItem(outsideChanges, { status: 'declined', completedAtMs: expect.any(Number) }), ...base, contentTokenCount: null, completedAtMs: expect.any(Number) } },
    ]));
    expect(existsSync(outsideTarget)).toBe(false);
    expect(lastInput(r.first + 1)[1]).toEqual({ type: 'custom_tool_call_output', id: ctcoId, call_id: 'call-1', output: 'patch rejected by user' });
  } finally {
    await r.server.close();
  }
});

test('on-request, outside the writable roots, cancel: no item/completed, the turn ends interrupted, nothing written', async () => {
  rmSync(outsideTarget, { force: true });
  const cwd = workspace('out-cancel');
  const r = await patchTurn(cwd, OUTSIDE, 'workspace-write', { approvalPolicy: 'on-request', decision: 'cancel' });
  try {
    expect(trail(r)).toEqual(askedTrail(r, []));
    expect(r.turn).toEqual({ id: r.turnId, rootTurnId: r.turnId, items: [], itemsView: 'notLoaded', status: 'interrupted', error: null, startedAt: expect.any(Number), completedAt: expect.any(Number), durationMs: expect.any(Number) });
    expect(mock.requests.length).toBe(r.first + 1);
    expect(existsSync(outsideTarget)).toBe(false);
    const records = await recordsOf(r.server, r.threadId);
    expect(records.filter((rec) => rec.payload.item?.type === 'FileChange')).toEqual([]);
    expect(records.filter((rec) => rec.payload.type === 'custom_tool_call_output').map((rec) => rec.payload.output)).toEqual([expect.stringMatching(/^aborted by user after \d+\.\ds$/)]);
    expect(records.at(-1)!.payload).toMatchObject({ type: 'turn_aborted', turn_id: r.turnId, reason: 'interrupted' });
    expect(mock.discardQueued()).toBe(1);
  } finally {
    await r.server.close();
  }
});

test('read-only, on-request: a patch inside the cwd is asked for; workspace-write inside and never under danger-full-access are not', async () => {
  const ro = workspace('ro-inside');
  const add = '*** Begin Patch\n*** Add File: new.txt\n+hello\n*** End Patch';
  const r = await patchTurn(ro, add, 'read-only', { approvalPolicy: 'on-request', decision: 'accept' });
  try {
    expect(trail(r).map((m) => m.method)).toEqual(['thread/status/changed', 'item/started', 'thread/status/changed', 'item/fileChange/requestApproval', 'serverRequest/resolved', 'thread/status/changed', 'item/completed', 'thread/status/changed']);
    expect(readFileSync(join(ro, 'new.txt'), 'utf8')).toBe('hello\n');
  } finally {
    await r.server.close();
  }
  for (const [name, sandbox, approvalPolicy] of [['ww-inside', 'workspace-write', 'on-request'], ['never-all', 'danger-full-access', 'never']] as const) {
    const cwd = workspace(name);
    const plain = await patchTurn(cwd, add, sandbox, { approvalPolicy });
    try {
      expect(trail(plain).map((m) => m.method)).toEqual(['thread/status/changed', 'item/started', 'item/completed', 'thread/status/changed']);
      expect(lastInput(plain.first + 1)[1]).toEqual({ type: 'custom_tool_call_output', id: ctcoId, call_id: 'call-1', output: successText('Success. Updated the following files:\nA new.txt\n') });
      expect(readFileSync(join(cwd, 'new.txt'), 'utf8')).toBe('hello\n');
    } finally {
      await plain.server.close();
    }
  }
});

const ADD_INSIDE = '*** Begin Patch\n*** Add File: new.txt\n+hello\n*** End Patch';
const askedMethods = ['thread/status/changed', 'item/started', 'thread/status/changed', 'item/fileChange/requestApproval', 'serverRequest/resolved', 'thread/status/changed', 'item/completed', 'thread/status/changed'];

test('untrusted: every patch is asked for, inside the cwd and under danger-full-access too', async () => {
  for (const [name, sandbox, decision] of [['untrusted-ww', 'workspace-write', 'accept'], ['untrusted-full', 'danger-full-access', 'decline']] as const) {
    const cwd = workspace(name);
    const r = await patchTurn(cwd, ADD_INSIDE, sandbox, { approvalPolicy: 'untrusted', decision });
    try {
      expect(trail(r).map((m) => m.method)).toEqual(askedMethods);
      expect(trail(r)[3]!.params).toEqual({ threadId: r.threadId, turnId: r.turnId, itemId: 'call-1', startedAtMs: expect.any(Number), reason: null, grantRoot: null });
      expect(trail(r)[6]!.params.item.status).toBe(decision === 'accept' ? 'completed' : 'declined');
      expect(lastInput(r.first + 1)[1]).toEqual({ type: 'custom_tool_call_output', id: ctcoId, call_id: 'call-1', output: decision === 'accept' ? successText('Success. Updated the following files:\nA new.txt\n') : 'patch rejected by user' });
      expect(existsSync(join(cwd, 'new.txt'))).toBe(decision === 'accept');
    } finally {
      await r.server.close();
    }
  }
});

test('granular: sandbox_approval asks outside the writable roots as on-request does; without it the patch is refused as under never', async () => {
  rmSync(outsideTarget, { force: true });
  const asking = await patchTurn(workspace('granular-ask'), OUTSIDE, 'workspace-write', { approvalPolicy: { granular: { sandbox_approval: true, rules: false, mcp_elicitations: false } }, decision: 'accept' });
  try {
    const base = { threadId: asking.threadId, turnId: asking.turnId };
    expect(trail(asking)).toEqual(askedTrail(asking, [
      { method: 'item/completed', params: { item: fileItem(outsideChanges, { status: 'completed', completedAtMs: expect.any(Number) }), ...base, contentTokenCount: null, completedAtMs: expect.any(Number) } },
    ]));
    expect(readFileSync(outsideTarget, 'utf8')).toBe('outside\n');
  } finally {
    await asking.server.close();
    rmSync(outsideTarget, { force: true });
  }
  const refusing = { granular: { sandbox_approval: false, rules: true, mcp_elicitations: true } };
  const cases = [
    ['granular-out', OUTSIDE, 'workspace-write', refusing, 'patch rejected: writing outside of the project; rejected by user approval settings'],
    ['granular-ro', ADD_INSIDE, 'read-only', refusing, 'patch rejected: writing is blocked by read-only sandbox; rejected by user approval settings'],
    ['never-ro', ADD_INSIDE, 'read-only', 'never', 'patch rejected: writing is blocked by read-only sandbox; rejected by user approval settings'],
  ] as const;
  for (const [name, patch, sandbox, approvalPolicy, text] of cases) {
    const cwd = workspace(name);
    const r = await patchTurn(cwd, patch, sandbox, { approvalPolicy });
    try {
      expect(r.server.received.filter((m) => m.method === 'item/fileChange/requestApproval' || m.params?.item?.type === 'fileChange')).toEqual([]);
      expect(lastInput(r.first + 1)[1]).toEqual({ type: 'custom_tool_call_output', id: ctcoId, call_id: 'call-1', output: text });
      expect([existsSync(outsideTarget), existsSync(join(cwd, 'new.txt'))]).toEqual([false, false]);
    } finally {
      await r.server.close();
    }
  }
  const inside = workspace('granular-inside');
  const applied = await patchTurn(inside, ADD_INSIDE, 'workspace-write', { approvalPolicy: refusing });
  try {
    expect(trail(applied).map((m) => m.method)).toEqual(['thread/status/changed', 'item/started', 'item/completed', 'thread/status/changed']);
    expect(readFileSync(join(inside, 'new.txt'), 'utf8')).toBe('hello\n');
  } finally {
    await applied.server.close();
  }
});
