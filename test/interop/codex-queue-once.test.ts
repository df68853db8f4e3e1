// Opt-in (`npm run test:interop`): input queued in thread-host runs once on a home shared with
// codex-cli 0.171.0. thread-host queues X on an unloaded thread (mirrored into the reference's
// queue_1.sqlite); the reference resumes the thread and runs X; thread-host then resumes the
// thread and does not run X again: the rollout holds X's turn once (without the look-up of
// codex-queue-reconcile.ts, thread-host starts X a second turn).
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { referenceAndMock } from './reference-and-mock.js';
import { mockModelConfig, TestServer, type Message } from '../helpers/test-server.js';

const reference = referenceAndMock();

const start = (side: 'codex' | 'thread-host', home: string) =>
  TestServer.start({ home, keepConfig: true, ...(side === 'codex' ? { command: [reference.codex, 'app-server', '--listen', 'stdio://'] } : {}) });

const text = (value: string) => ({ type: 'text', text: value, text_elements: [] });

async function unload(server: TestServer, threadId: string): Promise<void> {
  const closed = server.waitForNotification('thread/closed', (p) => p.threadId === threadId, 20_000);
  await server.request('thread/unsubscribe', { threadId });
  await closed;
}

/** The rollout's turns (each starts with `task_started`) and the user input they were given. */
function turnsOf(rollout: string): { turns: number; inputs: string[] } {
  const lines = readFileSync(rollout, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Message);
  const turns = lines.filter((line) => line.type === 'event_msg' && line.payload.type === 'task_started').length;
  // The user's own messages, not the context the reference adds as user messages (`<environment_context>`).
  const inputs = lines
    .filter((line) => line.type === 'response_item' && line.payload.type === 'message' && line.payload.role === 'user')
    .map((line) => line.payload.content.map((part: Message) => part.text).join(''))
    .filter((words: string) => !words.startsWith('<'));
  return { turns, inputs };
}

test('input thread-host queued and the reference ran is not run again by thread-host', async () => {
  const home = mkdtempSync(join(tmpdir(), 'thread-host-queue-once-'));
  writeFileSync(join(home, 'config.toml'), mockModelConfig(reference.mock.url, 'thread_unload_delay_secs = 0'));
  try {
    // The reference makes the thread (and its databases).
    let codex = await start('codex', home);
    const { thread } = await codex.request('thread/start', {});
    const { turn } = await codex.request('turn/start', { threadId: thread.id, input: [text('one')] });
    await codex.waitForNotification('turn/completed', (p) => p.turn.id === turn.id, 20_000);
    await unload(codex, thread.id);
    await codex.close();

    // thread-host queues X on the unloaded thread; its row is written and marked.
    let host = await start('thread-host', home);
    const { queuedSubmission } = await host.request('thread/queue/add', { threadId: thread.id, input: [text('queued X')], clientUserMessageId: 'client-x', responsesapiClientMetadata: null });
    const marks = join(home, 'thread-queue-mirror', `${thread.id}.json`);
    const until = Date.now() + 5_000;
    while (!existsSync(marks) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(JSON.parse(readFileSync(marks, 'utf8'))).toEqual({ threadId: thread.id, mirrored: [queuedSubmission.id] });
    await host.close();

    // The reference resumes the thread and runs X.
    codex = await start('codex', home);
    expect((await codex.request('thread/queue/list', { threadId: thread.id })).data).toEqual([queuedSubmission]);
    await codex.request('thread/resume', { threadId: thread.id, excludeTurns: true });
    await codex.waitForNotification('turn/completed', (p) => p.threadId === thread.id, 20_000);
    expect((await codex.request('thread/queue/list', { threadId: thread.id })).data).toEqual([]);
    await unload(codex, thread.id);
    await codex.close();
    expect(turnsOf(thread.path)).toEqual({ turns: 2, inputs: ['one', 'queued X'] });

    // thread-host resumes the thread: X leaves its queue unrun.
    host = await start('thread-host', home);
    const changed = host.waitForNotification('thread/queue/changed', (p) => p.threadId === thread.id, 10_000);
    const resumed = await host.request('thread/resume', { threadId: thread.id });
    expect(resumed.thread.turns.length).toEqual(2);
    await changed;
    expect(await host.request('thread/queue/list', { threadId: thread.id })).toEqual({ data: [], nextCursor: null });
    // A turn would start right after the resume's drain: none did.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(host.notifications('turn/started')).toEqual([]);
    await unload(host, thread.id);
    await host.close();
    expect(turnsOf(thread.path)).toEqual({ turns: 2, inputs: ['one', 'queued X'] });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}, 180_000);
