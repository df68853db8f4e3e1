// What a user's own command (thread/shellCommand) and an interrupt leave in a thread's history,
// end to end: the rollout's records, the note the model is given on the next turn, and both
// read back by a cold resume in another process. Expected texts and orders are the reference's
// (codex-cli 0.171.0, probed: docs/tools.md, thread/shellCommand).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { messageItem, startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { startFleetHost } from '../helpers/fleet-hosts.js';
import { interruptedTurn } from '../helpers/interrupted-turn.js';
import { testDatabase } from '../helpers/test-database.js';
import { TestServer, type Message } from '../helpers/test-server.js';

let mock: MockModel;
let workspace: string;
beforeAll(async () => {
  mock = await startMockModel({ reply: 'Done' });
  workspace = mkdtempSync(join(tmpdir(), 'thread-host-user-shell-'));
});
afterAll(() => {
  mock.close();
  rmSync(workspace, { recursive: true, force: true });
});

const TURN_ABORTED =
  '<turn_aborted>\nThe user interrupted the previous turn on purpose. Any running unified exec processes may still be running in the background. If any tools/commands were aborted, they may have partially executed.\n</turn_aborted>';
const text = (value: string) => [{ type: 'text', text: value }];
const userText = (value: string) => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text: value }] });
const shellNote = (command: string, exitCode: number, output: string) =>
  new RegExp(`^<user_shell_command>\\n<command>\\n${command}\\n</command>\\n<result>\\nExit code: ${exitCode}\\nDuration: \\d+\\.\\d{4} seconds\\nOutput:\\n${output}\\n</result>\\n</user_shell_command>$`);

/** The rollout's records, each as `type` or `type/payload type`, with the harness notes' text. */
function recordKinds(path: string): string[] {
  return readFileSync(path, 'utf8').trim().split('\n').map((line) => {
    const { type, payload } = JSON.parse(line) as Message;
    if (type === 'response_item' && payload.role === 'user') return `user ${payload.internal_chat_message_metadata_passthrough.content_item_kinds.join(',')}`;
    if (type === 'event_msg' && payload.type === 'item_completed') return `item_completed ${payload.item.type}`;
    return type === 'event_msg' || type === 'response_item' ? `${type}/${payload.type}` : type;
  });
}

/** The model's input of request `index`, without its instructions. */
const inputOf = (index: number): unknown[] => (mock.requests[index]!.body as { input: Message[] }).input.filter((item) => item.role !== 'developer');

async function turn(server: TestServer, threadId: string, input: string): Promise<void> {
  const { turn: started } = await server.request('turn/start', { threadId, input: text(input) });
  await server.waitForNotification('turn/completed', (p) => p.turn.id === started.id, 20_000);
}

test("a user's command is a turn of its own in the rollout, and the model is told its result on the next turn, resumed or not", async () => {
  const home = mkdtempSync(join(tmpdir(), 'thread-host-user-shell-home-'));
  let server = await TestServer.start({ home, modelUrl: mock.url, env: { HOME: workspace } });
  try {
    const { thread } = await server.request('thread/start', { cwd: workspace });
    await server.request('thread/shellCommand', { threadId: thread.id, command: 'echo hi; exit 3' });
    await server.waitForNotification('turn/completed', (p) => p.threadId === thread.id, 20_000);
    const first = mock.requests.length;
    await turn(server, thread.id, 'next');
    const [note, next] = inputOf(first);
    expect(next).toEqual(userText('next'));
    expect(note).toEqual(userText(expect.stringMatching(shellNote('echo hi; exit 3', 3, 'hi\\n')) as unknown as string));
    const live = (await server.request('thread/read', { threadId: thread.id, includeTurns: true })).thread;
    expect(recordKinds(live.path)).toEqual([
      'session_meta',
      'event_msg/task_started', 'item_completed CommandExecution', 'user shell.user_command', 'event_msg/task_complete',
      'event_msg/task_started', 'turn_context', 'user user.text', 'item_completed UserMessage', 'item_completed AgentMessage', 'response_item/message', 'event_msg/token_count', 'event_msg/task_complete',
    ]);
    expect(await server.close()).toBe(0);

    server = await TestServer.start({ home, keepConfig: true, env: { HOME: workspace } });
    const resumed = (await server.request('thread/resume', { threadId: thread.id })).thread;
    expect(resumed.turns).toEqual(live.turns);
    const again = mock.requests.length;
    await turn(server, thread.id, 'after resume');
    expect(inputOf(again)).toEqual([note, next, { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Done' }] }, userText('after resume')]);
  } finally {
    await server.close();
    rmSync(home, { recursive: true, force: true });
  }
});

test('an interrupted turn leaves the <turn_aborted> note before its end, and the model gets it on the next turn', async () => {
  const server = await TestServer.start({ modelUrl: mock.url, env: { HOME: workspace } });
  try {
    const { thread } = await server.request('thread/start', { cwd: workspace });
    await interruptedTurn(server, mock, thread.id, 'stall');
    mock.enqueue({ kind: 'output', items: [messageItem('m1', 'ok')] });
    const first = mock.requests.length;
    await turn(server, thread.id, 'after');
    expect(inputOf(first)).toEqual([userText('stall'), userText(TURN_ABORTED), userText('after')]);
    const { path } = (await server.request('thread/read', { threadId: thread.id })).thread;
    expect(recordKinds(path).slice(0, 7)).toEqual(['session_meta', 'event_msg/task_started', 'turn_context', 'user user.text', 'item_completed UserMessage', 'user generic.turn_aborted', 'event_msg/turn_aborted']);
  } finally {
    await server.close();
  }
});

test('on the PostgreSQL store, another host resumes the command turn and gives the model its result', async () => {
  const db = await testDatabase();
  const timing = { leaseMs: 2_000, renewMs: 500 };
  const [a, b] = await Promise.all([startFleetHost(db, mock.url, timing), startFleetHost(db, mock.url, timing)]);
  try {
    const { thread } = await a.request('thread/start', { cwd: workspace });
    await a.request('thread/shellCommand', { threadId: thread.id, command: 'echo from-a' });
    await a.waitForNotification('turn/completed', (p) => p.threadId === thread.id, 20_000);
    const live = (await a.request('thread/read', { threadId: thread.id, includeTurns: true })).thread;
    await a.request('thread/unsubscribe', { threadId: thread.id });
    await a.waitForNotification('thread/closed', (p) => p.threadId === thread.id);
    const resumed = (await b.request('thread/resume', { threadId: thread.id })).thread;
    expect(resumed.turns).toEqual(live.turns);
    const first = mock.requests.length;
    await turn(b, thread.id, 'on b');
    expect(inputOf(first)).toEqual([userText(expect.stringMatching(shellNote('echo from-a', 0, 'from-a\\n')) as unknown as string), userText('on b')]);
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});
