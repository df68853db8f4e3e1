// Opt-in (`npm run test:interop`): names, read states and queues, shared with codex-cli 0.171.0
// through its state and queue databases. thread-host renames, marks read, runs turns and queues
// input on a thread the reference made, and the reference, started afterwards on the same
// home, shows that name, that read state and that queue (and runs the queue when it resumes
// the thread). A thread thread-host made shows thread-host's read state at once, and its name
// once the reference has indexed the thread and it is renamed again.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { referenceAndMock } from './reference-and-mock.js';
import { mockModelConfig, TestServer, type Message } from '../helpers/test-server.js';

const reference = referenceAndMock();

const start = (side: 'codex' | 'thread-host', home: string) =>
  TestServer.start({ home, keepConfig: true, ...(side === 'codex' ? { command: [reference.codex, 'app-server', '--listen', 'stdio://'] } : {}) });

const text = (value: string) => ({ type: 'text', text: value, text_elements: [] });

async function turn(server: TestServer, threadId: string, words: string): Promise<string> {
  const { turn: begun } = await server.request('turn/start', { threadId, input: [text(words)] });
  await server.waitForNotification('turn/completed', (p) => p.turn.id === begun.id, 20_000);
  return begun.id;
}

async function unload(server: TestServer, threadId: string): Promise<void> {
  const closed = server.waitForNotification('thread/closed', (p) => p.threadId === threadId, 20_000);
  await server.request('thread/unsubscribe', { threadId });
  await closed;
}

/** What a server shows of a thread: its name and read state, read and listed, and its queue. */
async function shown(server: TestServer, threadId: string): Promise<Message> {
  const read = await server.request('thread/read', { threadId });
  const listed = await server.request('thread/list', {});
  const queue = await server.request('thread/queue/list', { threadId });
  return {
    name: read.thread.name,
    listedName: listed.data.find((t: Message) => t.id === threadId)?.name ?? null,
    readState: read.readState,
    listedReadState: listed.readStates?.[threadId] ?? null,
    queue: queue.data,
  };
}

test('the reference shows the names, read states and queues thread-host set', async () => {
  const home = mkdtempSync(join(tmpdir(), 'thread-host-state-db-'));
  writeFileSync(join(home, 'config.toml'), mockModelConfig(reference.mock.url, 'thread_unload_delay_secs = 0'));
  try {
    // The reference makes a thread (and its databases, and the thread's row).
    let codex = await start('codex', home);
    const { thread } = await codex.request('thread/start', {});
    await turn(codex, thread.id, 'one');
    await unload(codex, thread.id);
    await codex.close();

    const host = await start('thread-host', home);
    await host.request('thread/name/set', { threadId: thread.id, name: 'Named by thread-host' });
    await host.request('thread/resume', { threadId: thread.id, excludeTurns: true });
    await turn(host, thread.id, 'two');
    let { readState } = await host.request('thread/read', { threadId: thread.id });
    readState = (await host.request('thread/readState/update', { threadId: thread.id, operation: { type: 'unread' }, expectedRevision: readState.revision })).readState;
    await unload(host, thread.id);
    const add = async (words: string) =>
      (await host.request('thread/queue/add', { threadId: thread.id, input: [text(words)], clientUserMessageId: `client-${words}`, responsesapiClientMetadata: null })).queuedSubmission;
    const a = await add('queued A');
    const b = await add('queued B');
    await host.request('thread/queue/reorder', { threadId: thread.id, queuedSubmissionIds: [b.id, a.id] });
    // A thread thread-host makes: the reference has no row for it yet.
    const { thread: made } = await host.request('thread/start', {});
    await turn(host, made.id, 'made here');
    await host.request('thread/name/set', { threadId: made.id, name: 'Not yet indexed' });
    await unload(host, made.id);
    const hostShows = { thread: await shown(host, thread.id), made: await shown(host, made.id) };
    await host.close();

    codex = await start('codex', home);
    expect(await shown(codex, thread.id)).toEqual(hostShows.thread);
    expect(hostShows.thread).toEqual({
      name: 'Named by thread-host',
      listedName: 'Named by thread-host',
      readState,
      listedReadState: readState,
      queue: [b, a],
    });
    // The read state is the reference's at once; the name waits for the reference's row.
    expect(await shown(codex, made.id)).toEqual({ ...hostShows.made, name: null, listedName: null });
    await codex.close();

    // Indexed now (the reference read it): the next rename reaches it.
    const again = await start('thread-host', home);
    await again.request('thread/name/set', { threadId: made.id, name: 'Indexed' });
    await again.close();
    codex = await start('codex', home);
    expect((await codex.request('thread/read', { threadId: made.id })).thread.name).toEqual('Indexed');

    // Resumed by the reference, the thread runs the queue thread-host filled, in its order.
    const prompts = reference.mock.requests.length;
    await codex.request('thread/resume', { threadId: thread.id, excludeTurns: true });
    for (let ended = 0; ended < 2; ended += 1) await codex.waitForNotification('turn/completed', (p) => p.threadId === thread.id, 20_000);
    const sent = reference.mock.requests.slice(prompts).map((request) => JSON.stringify(request.body));
    expect([sent.findIndex((body) => body.includes('queued B')), sent.findIndex((body) => body.includes('queued A'))].every((at, i, all) => at >= 0 && (i === 0 || at > all[i - 1]!))).toBe(true);
    expect((await codex.request('thread/queue/list', { threadId: thread.id })).data).toEqual([]);
    await codex.close();
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}, 180_000);
