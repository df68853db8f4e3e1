// Opt-in (`npm run test:interop`): patches and commands under the approval policies untrusted,
// granular (sandbox_approval true and false), on-request and never, run against the real reference,
// codex-cli 0.171.0 (model gpt-5.5, whose metadata asks for apply_patch), and against
// thread-host (`[features] apply_patch_tool = true`), on the same mock model. Each scenario is
// one thread of a few turns, each approval answered with the turn's next decision. Compared
// field by field (ids, times, wall times and the side's directories aside): every approval
// request and its resolution, the fileChange and commandExecution items, the turn diffs and
// turn ends, what the model is sent after each call, the files left, and the rollout's item
// and call-output records.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { functionCallItem, messageItem, type MockBehaviour } from '../../src/main/commands/mock-model/mock-model-server.js';
import { referenceAndMock } from './reference-and-mock.js';
import { mockModelConfig, TestServer, type Message } from '../helpers/test-server.js';

type Side = 'thread-host' | 'codex';
const reference = referenceAndMock();
const patch = (callId: string, body: string): MockBehaviour => ({ kind: 'output', items: [{ type: 'custom_tool_call', id: `ctc_${callId}`, call_id: callId, name: 'apply_patch', input: `*** Begin Patch\n${body}*** End Patch` }] });
const exec = (callId: string, args: Record<string, unknown>): MockBehaviour => ({ kind: 'output', items: [functionCallItem(callId, 'exec_command', args)] });
const done = (id: string): MockBehaviour => ({ kind: 'output', items: [messageItem(id, 'done')] });

interface Turn {
  steps: MockBehaviour[];
  decisions: string[];
}

// Inside the cwd, then outside every writable root (a directory under /var/tmp): one accepted, then one declined, of each.
const PATCH_TURNS = (out: string): Turn[] => [
  { steps: [patch('p1', '*** Update File: a.txt\n@@\n one\n-two\n+TWO\n'), done('m1')], decisions: ['accept'] },
  { steps: [patch('p2', `*** Update File: ${join(out, 'o.txt')}\n@@\n-out\n+OUT\n`), done('m2')], decisions: ['accept'] },
  { steps: [patch('p3', '*** Add File: c.txt\n+cee\n'), done('m3')], decisions: ['decline'] },
  { steps: [patch('p4', `*** Add File: ${join(out, 'o2.txt')}\n+o2\n`), done('m4')], decisions: ['decline'] },
];
// A patch approved for the session, then patches of the same file and of another one.
const PATCH_SESSION_TURNS = (out: string): Turn[] => [
  { steps: [patch('s1', `*** Update File: ${join(out, 'o.txt')}\n@@\n-out\n+OUT\n`), done('m1')], decisions: ['acceptForSession'] },
  { steps: [patch('s2', `*** Update File: ${join(out, 'o.txt')}\n@@\n-OUT\n+out2\n`), patch('s3', '*** Update File: a.txt\n@@\n one\n-two\n+TWO\n'), done('m2')], decisions: ['accept', 'accept'] },
];
// Plain commands, one approved for the session and asked no more, a chain, a substitution, escalations and
// the commands the reference deems dangerous (rm with a force flag).
const COMMAND_TURNS = (): Turn[] => [
  { steps: [exec('c1', { cmd: 'ls' }), exec('c2', { cmd: 'touch t1.txt' }), exec('c3', { cmd: 'cat a.txt && touch t3.txt' }), exec('c4', { cmd: 'echo $(echo hi)' }), done('m1')], decisions: ['acceptForSession', 'decline', 'accept', 'accept'] },
  { steps: [exec('c5', { cmd: 'ls' }), exec('c6', { cmd: 'touch t4.txt', sandbox_permissions: 'require_escalated', justification: 'need it' }), exec('c7', { cmd: 'touch t5.txt', sandbox_permissions: 'require_escalated' }), exec('c8', { cmd: 'rm -rf zz' }), exec('c9', { cmd: 'echo ok && rm -f zz' }), done('m2')], decisions: ['accept', 'decline', 'accept', 'decline'] },
];
const granular = (sandboxApproval: boolean) => ({ granular: { sandbox_approval: sandboxApproval, rules: !sandboxApproval, mcp_elicitations: !sandboxApproval } });

const SCENARIOS: Array<{ name: string; approvalPolicy: unknown; sandbox: string; turns: (out: string) => Turn[] }> = [
  { name: 'patches, untrusted, workspace-write', approvalPolicy: 'untrusted', sandbox: 'workspace-write', turns: PATCH_TURNS },
  { name: 'patches, untrusted, danger-full-access', approvalPolicy: 'untrusted', sandbox: 'danger-full-access', turns: PATCH_TURNS },
  { name: 'patches, granular asking, workspace-write', approvalPolicy: granular(true), sandbox: 'workspace-write', turns: PATCH_TURNS },
  { name: 'patches, granular asking, read-only', approvalPolicy: granular(true), sandbox: 'read-only', turns: PATCH_TURNS },
  { name: 'patches, granular refusing, workspace-write', approvalPolicy: granular(false), sandbox: 'workspace-write', turns: PATCH_TURNS },
  { name: 'patches, granular refusing, read-only', approvalPolicy: granular(false), sandbox: 'read-only', turns: PATCH_TURNS },
  { name: 'patches, never, read-only', approvalPolicy: 'never', sandbox: 'read-only', turns: PATCH_TURNS },
  { name: 'patches for the session, untrusted, workspace-write', approvalPolicy: 'untrusted', sandbox: 'workspace-write', turns: PATCH_SESSION_TURNS },
  { name: 'patches for the session, on-request, workspace-write', approvalPolicy: 'on-request', sandbox: 'workspace-write', turns: PATCH_SESSION_TURNS },
  { name: 'commands, untrusted, workspace-write', approvalPolicy: 'untrusted', sandbox: 'workspace-write', turns: COMMAND_TURNS },
  { name: 'commands, granular asking, workspace-write', approvalPolicy: granular(true), sandbox: 'workspace-write', turns: COMMAND_TURNS },
  { name: 'commands, granular refusing, workspace-write', approvalPolicy: granular(false), sandbox: 'workspace-write', turns: COMMAND_TURNS },
  { name: 'commands, on-request, workspace-write', approvalPolicy: 'on-request', sandbox: 'workspace-write', turns: COMMAND_TURNS },
  { name: 'commands, never, workspace-write', approvalPolicy: 'never', sandbox: 'workspace-write', turns: COMMAND_TURNS },
  { name: 'commands, never, danger-full-access', approvalPolicy: 'never', sandbox: 'danger-full-access', turns: COMMAND_TURNS },
  { name: 'commands, on-request, danger-full-access', approvalPolicy: 'on-request', sandbox: 'danger-full-access', turns: COMMAND_TURNS },
];

const KEPT = (m: Message): boolean =>
  String(m.method).endsWith('requestApproval') ||
  ['serverRequest/resolved', 'turn/diff/updated', 'turn/completed'].includes(m.method as string) ||
  (['item/started', 'item/completed'].includes(m.method as string) && ['fileChange', 'commandExecution'].includes(m.params?.item?.type));

/** Ids, times, durations, chunk ids, wall times and the side's directories out of the way. */
function normalised(value: unknown, dirs: Record<string, string>): unknown {
  if (typeof value === 'string') {
    let out = value.replace(/^Chunk ID: [0-9a-f]{6}\n/, 'Chunk ID: <hex>\n').replace(/Wall time: [\d.]+ seconds/, 'Wall time: <s> seconds');
    for (const [name, dir] of Object.entries(dirs)) out = out.split(dir).join(`<${name}>`);
    return out;
  }
  if (Array.isArray(value)) return value.map((inner) => normalised(inner, dirs));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    const volatile = ['threadId', 'turnId', 'thread_id', 'turn_id', 'startedAtMs', 'completedAtMs', 'started_at_ms', 'completed_at_ms', 'durationMs', 'duration', 'startedAt', 'completedAt', 'rootTurnId', 'processId', 'process_id'];
    if (volatile.includes(key)) out[key] = typeof inner;
    else if (key === 'id' && typeof inner === 'string' && /^(ctco|fco)_[0-9a-f-]{36}$/.test(inner)) out[key] = inner.slice(0, 4);
    else if (key === 'turn' && inner !== null && typeof inner === 'object') out[key] = { status: (inner as { status: unknown }).status };
    else out[normalised(key, dirs) as string] = normalised(inner, dirs);
  }
  return out;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? filesUnder(join(dir, name)) : [join(dir, name)]));
}

interface Seen {
  notices: unknown[];
  outputs: unknown[];
  records: unknown[];
  files: Record<string, string>;
}

async function runScenario(side: Side, root: string, out: string, scenario: (typeof SCENARIOS)[number]): Promise<Seen> {
  const home = join(root, 'home');
  const ws = join(root, 'ws');
  for (const dir of [home, ws, join(home, 'tmpdir'), join(root, 'userhome')]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(ws, 'a.txt'), 'one\ntwo\n');
  writeFileSync(join(out, 'o.txt'), 'out\n');
  const config = mockModelConfig(reference.mock.url, 'thread_unload_delay_secs = 0\nfeatures.apply_patch_tool = true');
  // The reference offers apply_patch only to a model whose metadata asks for it, and does not know the feature key.
  writeFileSync(join(home, 'config.toml'), side === 'codex' ? config.replace('model = "mock-model"', 'model = "gpt-5.5"').replace('features.apply_patch_tool = true', '') : config);
  const env = { TMPDIR: join(home, 'tmpdir'), HOME: join(root, 'userhome'), RUST_BACKTRACE: '0' };
  const server = await TestServer.start({ home, keepConfig: true, env, ...(side === 'codex' ? { command: [reference.codex, 'app-server', '--listen', 'stdio://'] } : {}) });
  const { thread } = await server.request('thread/start', { cwd: ws, approvalPolicy: scenario.approvalPolicy, sandbox: scenario.sandbox });
  const first = reference.mock.requests.length;
  const asked = () => server.received.filter((m) => String(m.method).endsWith('requestApproval') && 'id' in m);
  for (const turn of scenario.turns(out)) {
    for (const step of turn.steps) reference.mock.enqueue(step);
    const decisions = [...turn.decisions];
    let answered = asked().length;
    const answering = setInterval(() => {
      for (const request of asked().slice(answered)) server.sendText(JSON.stringify({ id: request.id, result: { decision: decisions.shift() } }));
      answered = asked().length;
    }, 10);
    try {
      const { turn: started } = await server.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'go' }] });
      await server.waitForNotification('turn/completed', (p) => p.turn.id === started.id, 30_000);
    } finally {
      clearInterval(answering);
    }
  }
  const dirs = { ws, out };
  const path = (await server.request('thread/read', { threadId: thread.id })).thread.path as string;
  const records = readFileSync(path, 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as Message).payload).filter((p) =>
    (p.type === 'item_completed' && ['FileChange', 'CommandExecution'].includes(p.item.type)) || ['function_call_output', 'custom_tool_call_output'].includes(p.type));
  const seen: Seen = {
    notices: server.received.filter(KEPT).map((m) => normalised({ method: m.method, ...('id' in m ? { id: m.id } : {}), params: m.params }, dirs)),
    outputs: reference.mock.requests.slice(first).map((r) => (r.body as { input: Message[] }).input.at(-1)!).filter((i) => String(i.type).endsWith('call_output')).map((i) => normalised(i, dirs)),
    records: records.map((p) => normalised({ ...p, internal_chat_message_metadata_passthrough: undefined }, dirs)),
    files: Object.fromEntries([...filesUnder(ws).map((f) => [f.replace(ws, '<ws>'), readFileSync(f, 'utf8')]), ...filesUnder(out).map((f) => [f.replace(out, '<out>'), readFileSync(f, 'utf8')])]),
  };
  expect(await server.close()).toBe(0);
  return seen;
}

for (const scenario of SCENARIOS) {
  test(`${scenario.name}: the same requests, items, model input, files and records on both`, async () => {
    const top = mkdtempSync(join(tmpdir(), 'thread-host-interop-approvals-'));
    // Outside every writable root of workspace-write (the cwd, /tmp and $TMPDIR).
    const outside = mkdtempSync('/var/tmp/thread-host-interop-approvals-');
    try {
      const runs = {} as Record<Side, Seen>;
      for (const side of ['codex', 'thread-host'] as const) {
        const out = join(outside, side);
        mkdirSync(out);
        runs[side] = await runScenario(side, join(top, side), out, scenario);
      }
      expect(runs['thread-host'].notices).toEqual(runs.codex.notices);
      expect(runs['thread-host'].outputs).toEqual(runs.codex.outputs);
      expect(runs['thread-host'].files).toEqual(runs.codex.files);
      expect(runs['thread-host'].records).toEqual(runs.codex.records);
    } finally {
      rmSync(top, { recursive: true, force: true });
      rmSync(outside, { recursive: true, force: true });
    }
  }, 120_000);
}
