// Approvals for `exec_command` end to end: a command that asks to leave the sandbox
// (`sandbox_permissions: "require_escalated"`) under approval_policy on-request (or granular
// with sandbox_approval) asks the client `item/commandExecution/requestApproval`, and each
// decision has the reference's effect (codex-cli 0.171.0, probed: docs/tools.md, Commands);
// under never (or granular without sandbox_approval) it is refused; under untrusted every
// command is asked for.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { functionCallItem, messageItem, startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { TestServer, type Message } from '../helpers/test-server.js';

let mock: MockModel;
let workspace: string;
beforeAll(async () => {
  mock = await startMockModel({ reply: 'Done' });
  workspace = mkdtempSync(join(tmpdir(), 'thread-host-approvals-ws-'));
});
afterAll(() => {
  mock.close();
  rmSync(workspace, { recursive: true, force: true });
  rmSync(outside, { force: true });
});

const rolloutOf = (path: string) => readFileSync(path, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Message);

// Outside every writable root of the read-only sandbox the threads run in.
const outside = `/var/tmp/thread-host-approval-${process.pid}.txt`;
const script = `echo x > ${outside} && echo ok`;
const escalated = { cmd: script, sandbox_permissions: 'require_escalated', justification: 'Need to write outside the workspace?', prefix_rule: ['bash'] };
const command = `/bin/bash -lc '${script}'`;
const argv = ['/bin/bash', '-lc', script];
const DECLINED = 'exec_command failed: CreateProcess { message: "Rejected(\\"rejected by user\\")" }';

interface Run {
  server: TestServer;
  threadId: string;
  turn: Message;
  first: number;
}

/** One turn of a fresh server whose model makes `calls` (one reply each), answering each approval with the next decision. */
async function run(approvalPolicy: unknown, calls: unknown[], decisions: unknown[], options: { sandbox?: string; answerAfterMs?: number } = {}): Promise<Run> {
  const sandbox = options.sandbox ?? 'read-only';
  rmSync(outside, { force: true });
  const server = await TestServer.start({ modelUrl: mock.url, env: { HOME: workspace } });
  const { thread } = await server.request('thread/start', { cwd: workspace, approvalPolicy, sandbox });
  const first = mock.requests.length;
  for (const args of calls.map((call, i) => functionCallItem(`call-${i + 1}`, 'exec_command', call))) mock.enqueue({ kind: 'output', items: [args] });
  mock.enqueue({ kind: 'output', items: [messageItem('msg-1', 'done')] });
  let answered = 0;
  const answering = setInterval(() => {
    const asked = server.received.filter((m) => m.method === 'item/commandExecution/requestApproval' && 'id' in m);
    for (const request of asked.slice(answered)) {
      const decision = decisions[answered];
      setTimeout(() => server.sendText(JSON.stringify({ id: request.id, result: { decision } })), options.answerAfterMs ?? 0);
      answered += 1;
    }
  }, 10);
  try {
    const { turn } = await server.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'run it' }] });
    const completed = await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id, 15_000);
    return { server, threadId: thread.id, turn: completed.turn, first };
  } finally {
    clearInterval(answering);
  }
}

/** What the turn sent about the item, in order: the approval request, its resolution, the item's notices. */
function trail(r: Run, id: string): Message[] {
  return r.server.received
    .filter((m) => m.method === 'serverRequest/resolved' || m.params?.item?.id === id || m.params?.itemId === id)
    .map((m) => ('id' in m ? { method: m.method, id: m.id, params: m.params } : { method: m.method, params: m.params }));
}

const outputsOf = (r: Run, request: number) =>
  ((mock.requests[request]!.body as { input: Message[] }).input.filter((item) => item.type === 'function_call_output')).map((o) => o.output as string);

function asked(r: Run, id: string): Message {
  return { kind: 'command', threadId: r.threadId, turnId: r.turn.id, itemId: id, startedAtMs: expect.any(Number), environmentId: 'local', reason: 'Need to write outside the workspace?', command, cwd: workspace, commandActions: [{ type: 'unknown', command: script }], proposedExecpolicyAmendment: argv, availableDecisions: ['accept', { acceptWithExecpolicyAmendment: { execpolicy_amendment: argv } }, 'cancel'] };
}

function item(id: string, changes: Message): Message {
  return { type: 'commandExecution', id, pluginId: null, scriptPath: null, command, cwd: workspace, processId: null, source: 'agent', status: 'inProgress', commandActions: [{ type: 'unknown', command: script }], aggregatedOutput: null, exitCode: null, durationMs: null, startedAtMs: expect.any(Number), completedAtMs: null, ...changes };
}

const ran = { processId: expect.stringMatching(/^\d+$/), source: 'unifiedExecStartup', status: 'completed', aggregatedOutput: 'ok\n', exitCode: 0, durationMs: expect.any(Number), completedAtMs: expect.any(Number) };
const okText = expect.stringMatching(/^Chunk ID: [0-9a-f]{6}\nWall time: \d+\.\d{4} seconds\nProcess exited with code 0\nOriginal token count: 1\nOutput:\nok\n$/);

test('accept: asked, resolved, then run outside the sandbox', async () => {
  const r = await run('on-request', [escalated], ['accept']);
  try {
    const base = { threadId: r.threadId, turnId: r.turn.id };
    expect(trail(r, 'call-1')).toEqual([
      { method: 'item/started', params: { item: item('call-1', {}), ...base, startedAtMs: expect.any(Number) } },
      { method: 'item/commandExecution/requestApproval', id: 0, params: asked(r, 'call-1') },
      { method: 'serverRequest/resolved', params: { threadId: r.threadId, requestId: 0 } },
      { method: 'item/commandExecution/outputDelta', params: { ...base, itemId: 'call-1', delta: 'ok\n' } },
      { method: 'item/completed', params: { item: item('call-1', ran), ...base, contentTokenCount: null, completedAtMs: expect.any(Number) } },
    ]);
    expect(r.turn.status).toBe('completed');
    expect(existsSync(outside)).toBe(true);
    expect(outputsOf(r, r.first + 1)).toEqual([okText]);
    // While the approval waits, the thread is active and waiting on it, as the reference shows it.
    const statuses = r.server.received.filter((m) => m.method === 'thread/status/changed' && m.params.threadId === r.threadId).map((m) => m.params.status);
    expect(statuses).toEqual([
      { type: 'active', activeFlags: [] },
      { type: 'active', activeFlags: ['waitingOnApproval'] },
      { type: 'active', activeFlags: [] },
      { type: 'idle' },
    ]);
  } finally {
    await r.server.close();
  }
});

test('acceptForSession: the same command is not asked again in the thread', async () => {
  const r = await run('on-request', [escalated, escalated], ['acceptForSession']);
  try {
    expect(r.server.received.filter((m) => m.method === 'item/commandExecution/requestApproval').length).toBe(1);
    const second = trail(r, 'call-2').filter((m) => m.method !== 'serverRequest/resolved');
    expect(second.map((m) => m.method)).toEqual(['item/started', 'item/commandExecution/outputDelta', 'item/completed']);
    expect(second[0]!.params.item).toEqual(item('call-2', { processId: expect.stringMatching(/^\d+$/), source: 'unifiedExecStartup' }));
    expect(second[2]!.params.item).toEqual(item('call-2', ran));
    expect(outputsOf(r, r.first + 2)).toEqual([okText, okText]);
  } finally {
    await r.server.close();
  }
});

test('decline: the item ends declined, the model is told, the turn goes on', async () => {
  const r = await run('on-request', [escalated], ['decline']);
  try {
    const declined = item('call-1', { status: 'declined', completedAtMs: expect.any(Number) });
    expect(trail(r, 'call-1').map((m) => [m.method, m.params.item ?? m.params.requestId])).toEqual([
      ['item/started', item('call-1', {})],
      ['item/commandExecution/requestApproval', undefined],
      ['serverRequest/resolved', 0],
      ['item/completed', declined],
    ]);
    expect(r.turn.status).toBe('completed');
    expect(existsSync(outside)).toBe(false);
    expect(outputsOf(r, r.first + 1)).toEqual([DECLINED]);
    const path = (await r.server.request('thread/read', { threadId: r.threadId })).thread.path as string;
    const records = rolloutOf(path);
    expect(records.filter((rec) => rec.payload.item?.type === 'CommandExecution')).toEqual([]);
    expect(records.filter((rec) => rec.payload.type === 'function_call_output').map((rec) => rec.payload.output)).toEqual([DECLINED]);
  } finally {
    await r.server.close();
  }
});

test('cancel: the item ends declined and the turn ends interrupted, with no further model request', async () => {
  const r = await run('on-request', [escalated], ['cancel']);
  try {
    expect(r.server.notifications('item/completed').find((n) => n.params.item.id === 'call-1')!.params.item).toEqual(item('call-1', { status: 'declined', completedAtMs: expect.any(Number) }));
    expect(r.turn).toMatchObject({ status: 'interrupted', items: [], itemsView: 'notLoaded' });
    expect(mock.requests.length).toBe(r.first + 1);
    expect(existsSync(outside)).toBe(false);
    // The history keeps the call's output as the reference's (the turn was cut short).
    const path = (await r.server.request('thread/read', { threadId: r.threadId })).thread.path as string;
    const outputs = rolloutOf(path).filter((rec) => rec.payload.type === 'function_call_output').map((rec) => rec.payload.output as string);
    expect(outputs).toEqual([expect.stringMatching(/^Wall time: \d+(\.\d)? seconds\naborted by user$/)]);
    // The reply the turn never asked for is not left for the next test.
    expect(mock.discardQueued()).toBe(1);
  } finally {
    await r.server.close();
  }
});

test('accept: durationMs is the time of the run alone, not of the wait for the answer', async () => {
  const r = await run('on-request', [escalated], ['accept'], { answerAfterMs: 500 });
  try {
    const done = r.server.notifications('item/completed').find((n) => n.params.item.id === 'call-1')!.params.item;
    expect(done.completedAtMs - done.startedAtMs).toBeGreaterThanOrEqual(500);
    expect(done.durationMs).toBeLessThan(done.completedAtMs - done.startedAtMs - 400);
  } finally {
    await r.server.close();
  }
});

test('danger-full-access: an escalation is not asked, the command runs as any other', async () => {
  const r = await run('on-request', [escalated], [], { sandbox: 'danger-full-access' });
  try {
    expect(trail(r, 'call-1').map((m) => m.method)).toEqual(['item/started', 'item/commandExecution/outputDelta', 'item/completed']);
    expect(trail(r, 'call-1')[2]!.params.item).toEqual(item('call-1', ran));
    expect(existsSync(outside)).toBe(true);
    expect(outputsOf(r, r.first + 1)).toEqual([okText]);
  } finally {
    await r.server.close();
  }
});

test('never: an escalation is refused without an item or a question', async () => {
  const r = await run('never', [escalated], []);
  try {
    expect(trail(r, 'call-1')).toEqual([]);
    expect(outputsOf(r, r.first + 1)).toEqual(['approval policy is Never; reject command — you cannot ask for escalated permissions if the approval policy is Never']);
  } finally {
    await r.server.close();
  }
});

/** The request for a plain command the model gave no reason for: no `reason` key, its first command as the rule. */
function askedPlain(r: Run, id: string, cmd: string, rule: string[]): Message {
  return { kind: 'command', threadId: r.threadId, turnId: r.turn.id, itemId: id, startedAtMs: expect.any(Number), environmentId: 'local', command: `/bin/bash -lc '${cmd}'`, cwd: workspace, commandActions: [{ type: 'unknown', command: cmd }], proposedExecpolicyAmendment: rule, availableDecisions: ['accept', { acceptWithExecpolicyAmendment: { execpolicy_amendment: rule } }, 'cancel'] };
}
const requestsOf = (r: Run) => r.server.received.filter((m) => m.method === 'item/commandExecution/requestApproval').map((m) => m.params);

test('untrusted: every command is asked for, in the sandbox, with its first command as the rule and no reason; a session approval holds', async () => {
  const marker = join(workspace, 'untrusted-marker');
  rmSync(marker, { force: true });
  const r = await run('untrusted', [{ cmd: 'echo ok' }, { cmd: 'echo ok' }, { cmd: 'touch untrusted-marker && echo ok' }], ['acceptForSession', 'decline'], { sandbox: 'workspace-write' });
  try {
    expect(requestsOf(r)).toEqual([askedPlain(r, 'call-1', 'echo ok', ['echo', 'ok']), askedPlain(r, 'call-3', 'touch untrusted-marker && echo ok', ['touch', 'untrusted-marker'])]);
    expect(outputsOf(r, r.first + 3)).toEqual([okText, okText, DECLINED]);
    expect(existsSync(marker)).toBe(false);
    expect(r.turn.status).toBe('completed');
  } finally {
    await r.server.close();
  }
});

test('untrusted asks under danger-full-access too, and asks an escalation with its reason', async () => {
  const r = await run('untrusted', [escalated], ['accept'], { sandbox: 'danger-full-access' });
  try {
    expect(requestsOf(r)).toEqual([asked(r, 'call-1')]);
    expect(existsSync(outside)).toBe(true);
    expect(outputsOf(r, r.first + 1)).toEqual([okText]);
  } finally {
    await r.server.close();
  }
});

test('granular: an escalation is asked with sandbox_approval and refused without, the policy printed as the reference prints it', async () => {
  const asking = await run({ granular: { sandbox_approval: true, rules: false, mcp_elicitations: false } }, [escalated], ['accept']);
  try {
    expect(requestsOf(asking)).toEqual([asked(asking, 'call-1')]);
    expect(outputsOf(asking, asking.first + 1)).toEqual([okText]);
  } finally {
    await asking.server.close();
  }
  const refusing = await run({ granular: { sandbox_approval: false, rules: true, mcp_elicitations: true } }, [escalated], []);
  try {
    expect(trail(refusing, 'call-1')).toEqual([]);
    const policy = 'Granular(GranularApprovalConfig { sandbox_approval: false, rules: true, skill_approval: false, request_permissions: false, mcp_elicitations: true })';
    expect(outputsOf(refusing, refusing.first + 1)).toEqual([`approval policy is ${policy}; reject command — you cannot ask for escalated permissions if the approval policy is ${policy}`]);
    expect(existsSync(outside)).toBe(false);
  } finally {
    await refusing.server.close();
  }
});

test('on-request: an escalation without a justification is asked with no reason key, its first command as the rule', async () => {
  const r = await run('on-request', [{ cmd: 'touch escalated-marker', sandbox_permissions: 'require_escalated' }], ['decline']);
  try {
    expect(requestsOf(r)).toEqual([askedPlain(r, 'call-1', 'touch escalated-marker', ['touch', 'escalated-marker'])]);
    expect(outputsOf(r, r.first + 1)).toEqual([DECLINED]);
  } finally {
    await r.server.close();
  }
});

test('rm with a force flag is asked for even inside the sandbox, its dangerous command as the rule; never refuses it, without a sandbox too', async () => {
  const r = await run('on-request', [{ cmd: 'echo ok && rm -f nothing-here' }], ['accept'], { sandbox: 'workspace-write' });
  try {
    const script = 'echo ok && rm -f nothing-here';
    expect(requestsOf(r)).toEqual([askedPlain(r, 'call-1', script, ['rm', '-f', 'nothing-here'])]);
    expect(outputsOf(r, r.first + 1)).toEqual([okText]);
  } finally {
    await r.server.close();
  }
  const granular = await run({ granular: { sandbox_approval: false, rules: false, mcp_elicitations: false } }, [{ cmd: 'rm -rf nothing-here' }], ['decline'], { sandbox: 'workspace-write' });
  try {
    const { proposedExecpolicyAmendment: _, ...unruled } = askedPlain(granular, 'call-1', 'rm -rf nothing-here', []);
    expect(requestsOf(granular)).toEqual([{ ...unruled, availableDecisions: ['accept', 'cancel'] }]);
    expect(outputsOf(granular, granular.first + 1)).toEqual([DECLINED]);
  } finally {
    await granular.server.close();
  }
  const never = await run('never', [{ cmd: 'rm -rf "a b"' }], [], { sandbox: 'danger-full-access' });
  try {
    expect(trail(never, 'call-1')).toEqual([]);
    expect(outputsOf(never, never.first + 1)).toEqual(['exec_command failed: CreateProcess { message: "Rejected(\\"`/bin/bash -lc \'rm -rf \\\\\\"a b\\\\\\"\'` rejected: rm -f style commands are not permitted. Use a safer approach\\")" }']);
  } finally {
    await never.server.close();
  }
});
