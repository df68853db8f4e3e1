// Opt-in (`npm run test:interop`): one command-tool script run against the real reference,
// codex-cli 0.171.0, and against thread-host, on the same mock model, under approval policy
// never and danger-full-access: `exec_command` of `echo hi`, then of a command that fails. Compared
// field by field (ids, pids, times and durations aside): the exec_command and write_stdin specs
// the model is offered, the commandExecution items as started and completed, each item's output
// deltas joined, and what the model is sent next (the function_call_output, its Chunk ID and
// wall time normalised). Then a session script: a command left running past its yield, written to
// and polled with write_stdin: the model's outputs, items, terminal interactions and records.
// Then a terminal script (tty), unsandboxed and under workspace-write: the terminal's size and
// environment, echo, CRLF, Ctrl-C and Ctrl-D, ends with output pending, a background job, the
// two budgets of the output, and executable files that are no program.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { functionCallItem, messageItem } from '../../src/main/commands/mock-model/mock-model-server.js';
import { referenceAndMock } from './reference-and-mock.js';
import { mockModelConfig, TestServer, type Message } from '../helpers/test-server.js';

type Side = 'thread-host' | 'codex';

const reference = referenceAndMock();
const SHELL_TOOLS = new Set(['exec_command', 'write_stdin']);
// The failing command writes to stderr only. With both streams the reference's order across
// them is a race between its two pipe readers: `echo oops >&2; echo out` came back as
// "out\noops\n" here and as "oops\nout\n" in probe 40; thread-host keeps the order of its reads.
const COMMANDS = [
  { callId: 'call_echo', cmd: 'echo hi', output: 'hi\n' },
  { callId: 'call_fail', cmd: 'echo oops >&2; exit 3', output: 'oops\n' },
];
const text = (value: string) => [{ type: 'text', text: value }];

/** Ids, pids, times, durations and the side's own directory out of the way. */
function normalised(value: unknown, workspace: string): unknown {
  if (typeof value === 'string') return value.split(workspace).join('<workspace>');
  if (Array.isArray(value)) return value.map((inner) => normalised(inner, workspace));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (['threadId', 'turnId', 'startedAtMs', 'completedAtMs', 'durationMs', 'emittedAtMs'].includes(key)) out[key] = typeof inner;
    else if (key === 'processId' && typeof inner === 'string' && /^\d+$/.test(inner)) out[key] = 'pid';
    else if (key === 'id' && typeof inner === 'string' && /^fco_[0-9a-f-]{36}$/.test(inner)) out[key] = 'fco_uuid';
    else if (key === 'output' && typeof inner === 'string') out[key] = inner.replace(/^Chunk ID: [0-9a-f]{6}\nWall time: \d+\.\d{4} seconds\n/, 'Chunk ID: <hex>\nWall time: <s> seconds\n');
    else out[key] = normalised(inner, workspace);
  }
  return out;
}

interface Seen {
  specs: unknown;
  items: unknown[];
  deltas: Record<string, string>;
  nextInput: unknown[];
}

async function runScript(side: Side, home: string, workspace: string): Promise<Seen> {
  const mock = reference.mock;
  // The reference will not make its sandbox helper under the temp dir, where the home is; with
  // a TMPDIR elsewhere it does (facts shell-40 §3). Nothing here is sandboxed, but both sides
  // get the same environment.
  const env = { TMPDIR: join(home, 'tmpdir') };
  mkdirSync(env.TMPDIR);
  const server = await TestServer.start({ home, keepConfig: true, env, ...(side === 'codex' ? { command: [reference.codex, 'app-server', '--listen', 'stdio://'] } : {}) });
  const { thread } = await server.request('thread/start', { cwd: workspace, approvalPolicy: 'never', sandbox: 'danger-full-access' });
  const first = mock.requests.length;
  for (const [i, { callId, cmd }] of COMMANDS.entries()) {
    mock.enqueue({ kind: 'output', items: [functionCallItem(callId, 'exec_command', { cmd })] });
    mock.enqueue({ kind: 'output', items: [messageItem(`msg_${i}`, 'Done')] });
    const { turn } = await server.request('turn/start', { threadId: thread.id, input: text(`run ${cmd}`) });
    await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id, 20_000);
  }
  const commandItems = server.received.filter((m) => ['item/started', 'item/completed'].includes(m.method as string) && m.params?.item?.type === 'commandExecution');
  const deltas: Record<string, string> = {};
  for (const m of server.received.filter((m) => m.method === 'item/commandExecution/outputDelta')) {
    deltas[m.params!.itemId as string] = (deltas[m.params!.itemId as string] ?? '') + String(m.params!.delta);
  }
  const requests = mock.requests.slice(first).map((r) => r.body as { input: Message[]; tools: Message[] });
  const seen: Seen = {
    specs: requests[0]!.tools.filter((tool) => SHELL_TOOLS.has(tool.name as string)),
    items: commandItems.map((m) => normalised({ method: m.method, params: m.params }, workspace)),
    deltas,
    // The second request of each turn: what follows the model's own call.
    nextInput: [1, 3].map((i) => normalised(requests[i]!.input.slice(-1), workspace)),
  };
  expect(await server.close()).toBe(0);
  return seen;
}

/** Runs `script` on the reference, then on thread-host, each in a home and workspace of its own. */
async function onBothSides<T>(root: string, script: (side: Side, home: string, workspace: string) => Promise<T>): Promise<Record<Side, T>> {
  const runs = {} as Record<Side, T>;
  for (const side of ['codex', 'thread-host'] as const) {
    const home = join(root, side, 'home');
    const workspace = join(root, side, 'ws');
    mkdirSync(home, { recursive: true });
    mkdirSync(workspace);
    writeFileSync(join(home, 'config.toml'), mockModelConfig(reference.mock.url, 'thread_unload_delay_secs = 0'));
    runs[side] = await script(side, home, workspace);
  }
  return runs;
}

test('exec_command under approval never and full access: the same specs, items, output and model input on both', async () => {
  const root = mkdtempSync(join(tmpdir(), 'thread-host-interop-shell-'));
  try {
    const runs = await onBothSides(root, runScript);
    expect(runs['thread-host'].specs).toEqual(runs.codex.specs);
    expect(runs['thread-host'].items).toEqual(runs.codex.items);
    // The reference does not always stream: with HOME an empty directory (the login shell reads
    // no profile, so the command is done sooner) it sent no outputDelta for either command, only
    // the completed item's output; with the user's HOME it sent each output whole (seen with
    // codex 0.171.0; most likely output that comes before its reader attached is never streamed).
    // thread-host streams every read. So the reference's joined deltas are the whole output or
    // nothing, and thread-host's the whole output.
    expect(runs['thread-host'].deltas).toEqual(Object.fromEntries(COMMANDS.map(({ callId, output }) => [callId, output])));
    for (const { callId, output } of COMMANDS) expect([undefined, output]).toContain(runs.codex.deltas[callId]);
    expect(runs['thread-host'].nextInput).toEqual(runs.codex.nextInput);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

// The session script: a command still running after its yield, a write to it (no stdin without
// tty), a poll that sees its end, and a poll of the id after that; then one on a terminal (tty),
// written to, and ended with Ctrl-D. The model's replies read the
// session id from the host's previous answer, as a model does.
const SESSION_STEPS: Array<(session: number) => Record<string, unknown>> = [
  () => functionCallItem('s1', 'exec_command', { cmd: 'echo start; sleep 3; echo end', yield_time_ms: 1500 }),
  (session) => functionCallItem('s2', 'write_stdin', { session_id: session, chars: 'x\n' }),
  (session) => functionCallItem('s3', 'write_stdin', { session_id: session, yield_time_ms: 10000 }),
  (session) => functionCallItem('s4', 'write_stdin', { session_id: session }),
  () => functionCallItem('s5', 'exec_command', { cmd: 'echo ready; cat', tty: true, yield_time_ms: 1500 }),
  (session) => functionCallItem('s6', 'write_stdin', { session_id: session, chars: 'hello\n', yield_time_ms: 1500 }),
  (session) => functionCallItem('s7', 'write_stdin', { session_id: session, chars: '\u0004', yield_time_ms: 10000 }),
  () => messageItem('msg_s', 'Done'),
];

interface SessionSeen {
  outputs: unknown[];
  items: unknown[];
  interactions: unknown[];
  deltas: string;
  records: string[];
}

async function runSessionScript(side: Side, home: string, workspace: string): Promise<SessionSeen> {
  const mock = reference.mock;
  const env = { TMPDIR: join(home, 'tmpdir'), HOME: workspace };
  mkdirSync(env.TMPDIR);
  const server = await TestServer.start({ home, keepConfig: true, env, ...(side === 'codex' ? { command: [reference.codex, 'app-server', '--listen', 'stdio://'] } : {}) });
  const { thread } = await server.request('thread/start', { cwd: workspace, approvalPolicy: 'never', sandbox: 'danger-full-access' });
  const steps = [...SESSION_STEPS];
  mock.setResponder((request) => {
    const step = steps.shift();
    const session = Number([...JSON.stringify(request.body).matchAll(/session ID (\d+)/g)].at(-1)?.[1] ?? -1);
    return step === undefined ? undefined : { kind: 'output', items: [step(session)] };
  });
  const first = mock.requests.length;
  const { turn } = await server.request('turn/start', { threadId: thread.id, input: text('run it') });
  await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id, 30_000);
  mock.setResponder(null);
  const last = mock.requests.at(-1)!.body as { input: Message[] };
  expect(mock.requests.length - first).toBe(SESSION_STEPS.length);
  const path = (await server.request('thread/read', { threadId: thread.id })).thread.path as string;
  const records = readFileSync(path, 'utf8').trim().split('\n').flatMap((line) => {
    const p = (JSON.parse(line) as Message).payload;
    if (p.type === 'function_call' || p.type === 'function_call_output') return [`${p.type}:${p.call_id}`];
    if (p.type === 'item_completed' && p.item.type === 'CommandExecution') return [`item_completed:${p.item.id}:${p.item.status}:${p.item.exit_code}:${JSON.stringify(p.item.aggregated_output)}`];
    return p.type === 'task_complete' ? [p.type] : [];
  });
  const sessionOf = (value: unknown): unknown => JSON.parse(JSON.stringify(normalised(value, workspace)).replace(/(session ID |Unknown process id )\d+/g, '$1<n>').replace(/"processId":"pid"/g, '"processId":"<n>"'));
  const seen: SessionSeen = {
    outputs: last.input.filter((i) => i.type === 'function_call_output').map((i) => sessionOf(normalised(i, workspace))),
    items: server.received.filter((m) => ['item/started', 'item/completed'].includes(m.method as string) && m.params?.item?.type === 'commandExecution').map((m) => sessionOf({ method: m.method, params: m.params })),
    interactions: server.notifications('item/commandExecution/terminalInteraction').map((n) => sessionOf(n.params)),
    deltas: server.notifications('item/commandExecution/outputDelta').map((n) => n.params.delta as string).join(''),
    records,
  };
  expect(await server.close()).toBe(0);
  return seen;
}

test('a session: yielded, written to without stdin, polled to its end, then unknown — the same on both', async () => {
  const root = mkdtempSync(join(tmpdir(), 'thread-host-interop-session-'));
  try {
    const runs = await onBothSides(root, runSessionScript);
    expect(runs['thread-host'].outputs).toEqual(runs.codex.outputs);
    expect(runs['thread-host'].items).toEqual(runs.codex.items);
    expect(runs['thread-host'].interactions).toEqual(runs.codex.interactions);
    expect(runs['thread-host'].records).toEqual(runs.codex.records);
    // The reference streams no delta for a command's first read (seen with codex 0.171.0 for every
    // command: "start\n" reached the model and the item, never a delta); thread-host streams it.
    expect([runs.codex.deltas, runs['thread-host'].deltas]).toEqual(['end\nhello\r\nhello\r\n', 'start\nend\nready\r\nhello\r\nhello\r\n']);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

type Step = { name: 'exec_command' | 'write_stdin'; args: Record<string, unknown> };
const exec = (args: Record<string, unknown>): Step => ({ name: 'exec_command', args });
const write = (chars: string, yieldMs: number): Step => ({ name: 'write_stdin', args: { chars, yield_time_ms: yieldMs } });
const TRAP_INT = 'trap "echo caught; exit 7" INT; echo armed; while :; do sleep 0.1; done';
const TERMINAL_STEPS: Record<string, { sandbox: string; steps: Step[] }> = {
  full: {
    sandbox: 'danger-full-access',
    steps: [
      exec({ cmd: 'stty size; tty | sed "s/[0-9]*$/N/"; [ -t 0 ] && [ -t 1 ] && [ -t 2 ] && echo on-tty; echo err >&2; echo "T=$TERM P=$PAGER N=$NO_COLOR C=$COLUMNS L=$LINES"; exit 3', tty: true, yield_time_ms: 10000 }),
      exec({ cmd: 'printf "a\\nb\\r\\nc"', tty: true, yield_time_ms: 10000 }),
      exec({ cmd: 'echo ready; cat', tty: true, yield_time_ms: 1500 }),
      write('hello\n', 1500),
      write('abc', 1000),
      write('\u0004', 1500),
      write('\u0004', 10000),
      exec({ cmd: TRAP_INT, tty: true, yield_time_ms: 1500 }),
      write('\u0003', 10000),
      exec({ cmd: 'sleep 30', tty: true, yield_time_ms: 1000 }),
      write('\u0003', 10000),
      exec({ cmd: 'cat', tty: true, yield_time_ms: 500 }),
      write('x\u0003', 10000),
      exec({ cmd: 'head -c 30000 /dev/zero | tr "\\0" x; exit 2', tty: true, yield_time_ms: 10000, max_output_tokens: 50 }),
      exec({ cmd: '(sleep 1; echo late) & echo early', tty: true, yield_time_ms: 10000 }),
      exec({ cmd: 'echo start; sleep 0.5; printf "no-newline"; exit 4', tty: true, yield_time_ms: 250 }),
      write('', 5000),
      exec({ cmd: 'read x; echo got:$x; exit 5', tty: true, yield_time_ms: 1000 }),
      write('v\n', 5000),
      exec({ cmd: './plain', yield_time_ms: 10000 }),
      exec({ cmd: './plain', tty: true, yield_time_ms: 10000 }),
      exec({ cmd: './binlike', yield_time_ms: 10000 }),
      exec({ cmd: 'printf "\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff"', yield_time_ms: 10000 }),
      exec({ cmd: 'seq 1 20000', yield_time_ms: 10000, max_output_tokens: 30 }),
    ],
  },
  sandbox: {
    sandbox: 'workspace-write',
    steps: [
      exec({ cmd: 'stty size; tty; [ -t 0 ] && [ -t 1 ] && [ -t 2 ] && echo on-tty; echo x > f.txt; echo rc=$?; exit 3', tty: true, yield_time_ms: 10000 }),
      exec({ cmd: 'echo ready; cat', tty: true, yield_time_ms: 1500 }),
      write('hello\n', 1500),
      write('\u0004', 10000),
      exec({ cmd: TRAP_INT, tty: true, yield_time_ms: 1500 }),
      write('\u0003', 10000),
      exec({ cmd: 'sleep 30', tty: true, yield_time_ms: 1000 }),
      write('\u0003', 10000),
      exec({ cmd: './plain', tty: true, yield_time_ms: 10000 }),
    ],
  },
};

async function runTerminalScript(side: Side, home: string, workspace: string): Promise<Record<string, unknown>> {
  const mock = reference.mock;
  const userHome = join(home, 'userhome');
  mkdirSync(userHome);
  // Executable, but neither a binary nor a `#!` script: bash runs it as a script itself.
  writeFileSync(join(workspace, 'plain'), 'echo from-script ${0##*/}\n');
  writeFileSync(join(workspace, 'binlike'), Buffer.from([0x00, 0x01, 0x02, 0x0a, 0x41]));
  for (const name of ['plain', 'binlike']) chmodSync(join(workspace, name), 0o755);
  // A host TERM and PAGER of its own: the command gets them, not the unified-exec defaults.
  const env = { TMPDIR: join(home, 'tmpdir'), HOME: userHome, RUST_BACKTRACE: '0', TERM: 'xterm', PAGER: 'less' };
  mkdirSync(env.TMPDIR);
  const server = await TestServer.start({ home, keepConfig: true, env, ...(side === 'codex' ? { command: [reference.codex, 'app-server', '--listen', 'stdio://'] } : {}) });
  const seen: Record<string, unknown> = {};
  const sessionOf = (value: unknown): unknown => JSON.parse(JSON.stringify(normalised(value, workspace)).replace(/session ID \d+/g, 'session ID <n>'));
  try {
    for (const [label, { sandbox, steps }] of Object.entries(TERMINAL_STEPS)) {
      const { thread } = await server.request('thread/start', { cwd: workspace, approvalPolicy: 'never', sandbox });
      const queue = [...steps];
      mock.setResponder((request) => {
        const step = queue.shift();
        if (step === undefined) return { kind: 'output', items: [messageItem(`msg_${label}`, 'Done')] };
        const callId = `${label}${steps.length - queue.length}`;
        const session = Number([...JSON.stringify(request.body).matchAll(/session ID (\d+)/g)].at(-1)?.[1] ?? -1);
        return { kind: 'output', items: [functionCallItem(callId, step.name, step.name === 'write_stdin' ? { session_id: session, ...step.args } : step.args)] };
      });
      const { turn } = await server.request('turn/start', { threadId: thread.id, input: text('run it') });
      await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id, 120_000);
      mock.setResponder(null);
      const last = mock.requests.at(-1)!.body as { input: Message[] };
      const ofThread = (method: string) => server.notifications(method).filter((n) => n.params.threadId === thread.id);
      seen[label] = {
        outputs: last.input.filter((i) => i.type === 'function_call_output').map((i) => sessionOf({ call: i.call_id, output: i.output })),
        completed: ofThread('item/completed').filter((n) => n.params.item.type === 'commandExecution').map((n) => sessionOf([n.params.item.id, n.params.item.status, n.params.item.exitCode, n.params.item.aggregatedOutput])),
        interactions: ofThread('item/commandExecution/terminalInteraction').map((n) => [n.params.itemId, n.params.stdin]),
      };
    }
  } finally {
    expect(await server.close()).toBe(0);
  }
  return seen;
}

test('exec_command on a terminal, unsandboxed and in the sandbox: the same outputs, items and interactions on both', async () => {
  const root = mkdtempSync(join(tmpdir(), 'thread-host-interop-terminal-'));
  try {
    const runs = await onBothSides(root, runTerminalScript);
    for (const [label, { steps }] of Object.entries(TERMINAL_STEPS)) {
      // Every step was answered (an output each), so the comparison covers the whole script.
      expect((runs.codex[label] as { outputs: unknown[] }).outputs).toHaveLength(steps.length);
      expect({ [label]: runs['thread-host'][label] }).toEqual({ [label]: runs.codex[label] });
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}, 400_000);
