// Opt-in (`npm run test:interop`): thread-host and the real reference, codex-cli 0.171.0, on
// one home at the same time, both history formats, both directions. The reference is installed
// on demand into the bench's cache (bench/lib/reference-install.ts); `npm test` never needs it.
//
// Each side writes turns the other must read back whole, exactly once, in order; while one
// side has a thread loaded the other is refused by the shared writer lock.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { referenceAndMock } from './reference-and-mock.js';
import { fixedThreadId as id } from '../helpers/fixed-ids.js';
import { writeMinimalRollout, type MinimalRollout } from '../helpers/minimal-rollout.js';
import { mockModelConfig, RpcReplyError, TestServer, type Message } from '../helpers/test-server.js';

type Side = 'thread-host' | 'codex';
type Mode = 'paginated' | 'legacy';

const reference = referenceAndMock();

function newHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'thread-host-interop-'));
  writeFileSync(join(home, 'config.toml'), mockModelConfig(reference.mock.url, 'thread_unload_delay_secs = 0'));
  return home;
}

function startSide(side: Side, home: string): Promise<TestServer> {
  const command = side === 'codex' ? [reference.codex, 'app-server', '--listen', 'stdio://'] : undefined;
  return TestServer.start({ home, keepConfig: true, ...(command ? { command } : {}) });
}

const other = (side: Side): Side => (side === 'codex' ? 'thread-host' : 'codex');

async function turn(server: TestServer, threadId: string, text: string): Promise<Message> {
  const { turn: started } = await server.request('turn/start', { threadId, input: [{ type: 'text', text }] });
  return server.waitForNotification('turn/completed', (p) => p.threadId === threadId && p.turn.id === started.id, 20_000);
}

async function unload(server: TestServer, threadId: string): Promise<void> {
  const closed = server.waitForNotification('thread/closed', (p) => p.threadId === threadId, 20_000);
  expect(await server.request('thread/unsubscribe', { threadId })).toEqual({ status: 'unsubscribed' });
  await closed;
}

/** The user texts of a thread's turns, as `side` reads them from a resume. */
async function resumeTexts(server: TestServer, threadId: string): Promise<string[][]> {
  const { thread } = await server.request('thread/resume', { threadId }, 20_000);
  return thread.turns.map((t: Message) => t.items.map((item: Message) => (item.type === 'userMessage' ? item.content[0].text : item.text)));
}

/** The user and assistant texts of a Responses request, in order (instructions left out). */
function conversation(body: unknown): string[] {
  const input = (body as { input?: Array<{ role?: string; content?: Array<{ text?: string }> }> }).input ?? [];
  return input
    .filter((message) => message.role === 'user' || message.role === 'assistant')
    .flatMap((message) => (message.content ?? []).map((part) => part.text ?? ''))
    .filter((text) => ['one', 'two', 'three', 'Done'].includes(text));
}

describe.each<[Mode, Side]>([
  ['paginated', 'codex'],
  ['paginated', 'thread-host'],
  ['legacy', 'codex'],
  ['legacy', 'thread-host'],
])('a %s thread started by %s', (mode, first) => {
  test('moves back and forth with every turn, the lock refusing whichever side is not the writer', async () => {
    const home = newHome();
    const a = await startSide(first, home);
    const b = await startSide(other(first), home);
    try {
      const { thread } = await a.request('thread/start', { historyMode: mode });
      expect(thread.historyMode).toEqual(mode);
      expect((await turn(a, thread.id, 'one')).turn.status).toEqual('completed');
      const refused = await b.request('thread/resume', { threadId: thread.id }).catch((e: unknown) => e);
      expect(refused).toEqual(new RpcReplyError(-32600, `thread ${thread.id} already has an active writer`));
      await unload(a, thread.id);

      expect(await resumeTexts(b, thread.id)).toEqual([['one', 'Done']]);
      const sent = reference.mock.requests.length;
      expect((await turn(b, thread.id, 'two')).turn.status).toEqual('completed');
      // The other side's turn is in what the model is sent, not only in what is shown.
      expect(conversation(reference.mock.requests[sent]!.body)).toEqual(['one', 'Done', 'two']);
      await unload(b, thread.id);

      expect(await resumeTexts(a, thread.id)).toEqual([['one', 'Done'], ['two', 'Done']]);
      const sentAgain = reference.mock.requests.length;
      expect((await turn(a, thread.id, 'three')).turn.status).toEqual('completed');
      expect(conversation(reference.mock.requests[sentAgain]!.body)).toEqual(['one', 'Done', 'two', 'Done', 'three']);
      await unload(a, thread.id);

      expect(await resumeTexts(b, thread.id)).toEqual([['one', 'Done'], ['two', 'Done'], ['three', 'Done']]);
      const read = await b.request('thread/read', { threadId: thread.id, includeTurns: true });
      expect([read.thread.historyMode, read.thread.turns.length]).toEqual([mode, 3]);
      await unload(b, thread.id);

      // Each side lists the thread, whoever wrote it last.
      for (const server of [a, b]) {
        const listed = await server.request('thread/list', {});
        expect(listed.data.map((t: Message) => t.id)).toEqual([thread.id]);
      }
    } finally {
      await a.close();
      await b.close();
      rmSync(home, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('a race of two thread-host processes and one codex process', () => {
  test.each<Side>(['codex', 'thread-host'])('on a thread %s started loses no acknowledged turn and repeats none', async (starter) => {
    const home = newHome();
    const servers = [await startSide('thread-host', home), await startSide('thread-host', home), await startSide('codex', home)];
    try {
      const creator = starter === 'codex' ? servers[2]! : servers[0]!;
      const { thread } = await creator.request('thread/start', {});
      await turn(creator, thread.id, 'seed');
      await unload(creator, thread.id);
      const acknowledged: string[] = ['seed'];
      const ROUNDS = 6;
      await Promise.all(
        servers.map(async (server, index) => {
          for (let round = 0; round < ROUNDS; round += 1) {
            // Retry while another process writes or closes the thread, with jitter.
            for (let attempt = 0; ; attempt += 1) {
              const reply = await server.requestRaw('thread/resume', { threadId: thread.id, excludeTurns: true }, 20_000);
              if (!('error' in reply)) break;
              expect(reply.error.message).toMatch(/already has an active writer|is closing/);
              if (attempt > 400) throw new Error(`server ${index} never got the thread`);
              await new Promise((resolve) => setTimeout(resolve, 5 + Math.floor(Math.random() * 20)));
            }
            const text = `server ${index} round ${round}`;
            if ((await turn(server, thread.id, text)).turn.status === 'completed') acknowledged.push(text);
            await unload(server, thread.id);
          }
        }),
      );
      expect(acknowledged.length).toEqual(1 + ROUNDS * servers.length);
      // Every reader sees every acknowledged turn exactly once.
      for (const server of servers) {
        const users = (await resumeTexts(server, thread.id)).map((items) => items[0]);
        expect([...users].sort()).toEqual([...acknowledged].sort());
        await unload(server, thread.id);
      }
    } finally {
      for (const server of servers) await server.close();
      rmSync(home, { recursive: true, force: true });
    }
  }, 240_000);
});

describe('thread/list on one home', () => {
  // Rollouts another writer could leave: a name whose time disagrees with the session_meta's
  // (another clock or time zone), several in one second, every kind of recorded source, and
  // providers (none recorded counts as the home's default), and first messages to trim.
  const ROLLOUTS: MinimalRollout[] = [
    { threadId: id(1), created: '2026-11-01T12:00:00.500Z', namedAt: '2026-11-01T10:00:00.000Z', message: 'named before its creation' },
    { threadId: id(2), created: '2026-11-01T10:00:00.750Z', namedAt: '2026-11-01T12:00:00.000Z', message: 'named after its creation' },
    { threadId: id(3), created: '2026-11-01T11:00:00.900Z', message: 'same second, third' },
    { threadId: id(4), created: '2026-11-01T11:00:00.100Z', message: 'same second, fourth' },
    { threadId: id(5), created: '2026-11-01T11:00:00.500Z', message: 'same second, fifth', source: undefined },
    { threadId: id(6), created: '2026-11-02T09:00:00.000Z', message: 'cli', source: 'cli' },
    { threadId: id(7), created: '2026-11-02T09:00:01.000Z', message: 'exec', source: 'exec' },
    { threadId: id(8), created: '2026-11-02T09:00:02.000Z', message: 'mcp', source: 'mcp' },
    { threadId: id(9), created: '2026-11-02T09:00:03.000Z', message: 'appServer spelled as on the wire', source: 'appServer' },
    { threadId: id(10), created: '2026-11-02T09:00:04.000Z', message: 'review', source: { subagent: 'review' } },
    { threadId: id(11), created: '2026-11-02T09:00:05.000Z', message: 'spawned', source: { subagent: { thread_spawn: { parent_thread_id: id(1), depth: 1, agent_type: 'r' } } } },
    { threadId: id(12), created: '2026-11-02T09:00:06.000Z', message: 'other', source: { subagent: { other: 'x' } } },
    { threadId: id(13), created: '2026-11-02T09:00:07.000Z', message: 'custom', source: { custom: 'x' } },
    { threadId: id(14), created: '2026-11-02T09:00:08.000Z', message: 'null source', source: null },
    { threadId: id(15), created: '2026-11-02T09:00:09.000Z', message: 'the configured provider', modelProvider: 'mock_provider' },
    { threadId: id(16), created: '2026-11-02T09:00:10.000Z', message: 'another provider', modelProvider: 'other' },
    { threadId: id(17), created: '2026-11-02T09:00:11.000Z', message: '  padded\n' },
    { threadId: id(18), created: '2026-11-02T09:00:12.000Z', message: ' \n\t ' },
  ];
  const QUERIES: Message[] = [
    {},
    { limit: 2 },
    { limit: 2, sortDirection: 'asc' },
    { sourceKinds: ['exec', 'appServer', 'unknown'] },
    { sourceKinds: ['subAgent'] },
    { sourceKinds: ['subAgentThreadSpawn', 'subAgentOther'] },
    { limit: 3, sourceKinds: ['cli', 'vscode', 'exec', 'appServer', 'subAgent', 'unknown'] },
    { modelProviders: [] },
    { modelProviders: ['other'] },
    { modelProviders: ['mock_provider'], sortKey: 'updated_at', limit: 4 },
  ];

  /** Every page of each query, followed through its cursors. */
  async function pages(server: TestServer): Promise<Message[][]> {
    const all: Message[][] = [];
    for (const query of QUERIES) {
      const walked: Message[] = [];
      let cursor: string | null = null;
      do {
        const page: Message = await server.request('thread/list', { ...query, cursor });
        walked.push({ data: page.data, nextCursor: page.nextCursor, backwardsCursor: page.backwardsCursor });
        cursor = page.nextCursor;
      } while (cursor !== null && walked.length < 20);
      all.push(walked);
    }
    return all;
  }

  // Searches (`searchTerm`) are left out: the reference answers them from its state database,
  // ordered by the session_meta's time in milliseconds, with cursors that do not follow.
  test('orders, pages and filters by source and provider exactly as the reference', async () => {
    const home = newHome();
    for (const rollout of ROLLOUTS) writeMinimalRollout(home, rollout);
    try {
      const seen: Message[][][] = [];
      for (const side of ['codex', 'thread-host'] as const) {
        const server = await startSide(side, home);
        try {
          seen.push(await pages(server));
        } finally {
          await server.close();
        }
      }
      const [reference, ours] = seen;
      expect(ours).toEqual(reference);
      // The cases above are all there: the default listing holds the interactive sources only.
      expect(reference![0]![0]!.data.map((thread: Message) => thread.preview)).toEqual([
        'padded', 'the configured provider', 'cli', 'named after its creation', 'same second, fifth', 'same second, fourth', 'same second, third', 'named before its creation',
      ]);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 60_000);
});
