// Opt-in (`npm run test:interop`): one script run against the real reference, codex-cli
// 0.171.0, and against thread-host, on the same mock model: a user's command on a new thread
// (thread/shellCommand), a model turn, a turn interrupted while the model answers, another
// turn. Compared field by field (ids, times and durations aside): the model's input of each
// request (the `<user_shell_command>` and `<turn_aborted>` notes), and the turns a cold resume
// reads back; then each side resumes the other's home and is compared with the side that wrote it.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { messageItem } from '../../src/main/commands/mock-model/mock-model-server.js';
import { referenceAndMock } from './reference-and-mock.js';
import { interruptedTurn } from '../helpers/interrupted-turn.js';
import { mockModelConfig, TestServer, type Message } from '../helpers/test-server.js';

type Side = 'thread-host' | 'codex';
const reference = referenceAndMock();
const text = (value: string) => [{ type: 'text', text: value }];
const TIMES = new Set(['threadId', 'turnId', 'id', 'rootTurnId', 'startedAtMs', 'completedAtMs', 'durationMs', 'startedAt', 'completedAt']);

/** Ids, times and the side's own directory out of the way. */
function normalised(value: unknown, root: string): unknown {
  if (typeof value === 'string') return value.split(root).join('<root>').replace(/Duration: \d+\.\d{4} seconds/, 'Duration: <s> seconds');
  if (Array.isArray(value)) return value.map((inner) => normalised(inner, root));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, TIMES.has(key) ? typeof inner : normalised(inner, root)]));
}

/**
 * What the model is given, without the reference's instructions and context and its messages'
 * ids (thread-host sends none of them).
 */
const modelInput = (body: unknown, root: string): unknown =>
  normalised(
    (body as { input: Message[] }).input
      .filter((item) => item.role !== 'developer' && !JSON.stringify(item).includes('<environment_context>'))
      .map(({ id: _id, ...item }) => (item.type === 'message' ? item : { id: _id, ...item })),
    root,
  );

async function serve(side: Side, home: string): Promise<TestServer> {
  return TestServer.start({ home, keepConfig: true, env: { TMPDIR: join(home, 'tmpdir') }, ...(side === 'codex' ? { command: [reference.codex, 'app-server', '--listen', 'stdio://'] } : {}) });
}

async function turn(server: TestServer, threadId: string, input: string): Promise<void> {
  const { turn: started } = await server.request('turn/start', { threadId, input: text(input) });
  await server.waitForNotification('turn/completed', (p) => p.turn.id === started.id, 20_000);
}

interface Seen {
  threadId: string;
  inputs: unknown[];
  turns: unknown;
}

async function runScript(side: Side, root: string): Promise<Seen> {
  const mock = reference.mock;
  const home = join(root, 'home');
  let server = await serve(side, home);
  const { thread } = await server.request('thread/start', { cwd: join(root, 'ws'), approvalPolicy: 'never', sandbox: 'danger-full-access' });
  const first = mock.requests.length;
  await server.request('thread/shellCommand', { threadId: thread.id, command: 'echo hi; exit 3' });
  await server.waitForNotification('turn/completed', () => true, 20_000);
  mock.enqueue({ kind: 'output', items: [messageItem('m1', 'ok')] });
  await turn(server, thread.id, 'next');
  await interruptedTurn(server, mock, thread.id, 'stall');
  mock.enqueue({ kind: 'output', items: [messageItem('m2', 'ok2')] });
  await turn(server, thread.id, 'after');
  expect(await server.close()).toBe(0);
  server = await serve(side, home);
  const { thread: resumed } = await server.request('thread/resume', { threadId: thread.id });
  expect(await server.close()).toBe(0);
  const inputs = mock.requests.slice(first).map((request) => modelInput(request.body, root));
  return { threadId: thread.id, inputs, turns: normalised(resumed.turns, root) };
}

/** `reader` resumes the thread `writer` wrote (a copy of its home), and runs one more turn. */
async function crossResume(reader: Side, root: string, seen: Seen): Promise<Seen> {
  const mock = reference.mock;
  const home = join(root, `read-by-${reader}`);
  cpSync(join(root, 'home'), home, { recursive: true });
  const server = await serve(reader, home);
  const { thread } = await server.request('thread/resume', { threadId: seen.threadId });
  const first = mock.requests.length;
  mock.enqueue({ kind: 'output', items: [messageItem('m3', 'ok3')] });
  await turn(server, seen.threadId, 'resumed');
  expect(await server.close()).toBe(0);
  return { threadId: seen.threadId, inputs: mock.requests.slice(first).map((request) => modelInput(request.body, root)), turns: normalised(thread.turns, root) };
}

test("a user's command and an interrupt: the same notes to the model, the same turns read back, and each side resumes the other's", async () => {
  const top = mkdtempSync(join(tmpdir(), 'thread-host-interop-user-shell-'));
  try {
    const runs = {} as Record<Side, Seen>;
    const roots = {} as Record<Side, string>;
    for (const side of ['codex', 'thread-host'] as const) {
      const root = (roots[side] = join(top, side));
      mkdirSync(join(root, 'home', 'tmpdir'), { recursive: true });
      mkdirSync(join(root, 'ws'));
      writeFileSync(join(root, 'home', 'config.toml'), mockModelConfig(reference.mock.url, 'thread_unload_delay_secs = 0'));
      runs[side] = await runScript(side, root);
    }
    expect(runs['thread-host'].inputs).toEqual(runs.codex.inputs);
    expect(runs['thread-host'].turns).toEqual(runs.codex.turns);
    for (const [reader, writer] of [['codex', 'thread-host'], ['thread-host', 'codex']] as const) {
      const read = await crossResume(reader, roots[writer], runs[writer]);
      expect(read.turns).toEqual(runs[writer].turns);
      // The model is given the notes the writer recorded: the last request of the script, then the new turn.
      const last = runs[writer].inputs.at(-1) as unknown[];
      expect(read.inputs).toEqual([[...last, { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'ok2' }] }, { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'resumed' }] }]]);
    }
  } finally {
    rmSync(top, { recursive: true, force: true });
  }
});
