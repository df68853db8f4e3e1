// thread/list paging as the reference pages: by the time in each rollout's name, in whole
// seconds (ties broken by thread id in the sort direction), `nextCursor` "<time>|<id>", `backwardsCursor` one
// millisecond before (desc) or after (asc) the page's first thread, id filters of at most 100
// valid ids. The threads are rollouts written into the home with chosen times.
import { appendFileSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { rolloutPathFor } from '../../src/common/rollout/rollout-path.js';
import { RpcReplyError, TestServer, type Message } from '../helpers/test-server.js';
import { fixedThreadId as id } from '../helpers/fixed-ids.js';
import { writeMinimalRollout, type MinimalRollout } from '../helpers/minimal-rollout.js';

// T4 and T5 start in the same second; updates run in another order: T2 last. (Update times are
// file mtimes, set here with fractions a float second holds exactly.)
const CREATED = ['2026-12-02T10:00:01.250Z', '2026-12-02T10:00:02.500Z', '2026-12-02T10:00:03.750Z', '2026-12-02T10:00:04.100Z', '2026-12-02T10:00:04.900Z'];
const UPDATED = ['2026-12-02T11:00:01.000Z', '2026-12-02T11:00:05.250Z', '2026-12-02T11:00:03.000Z', '2026-12-02T11:00:04.000Z', '2026-12-02T11:00:02.500Z'];

function writeThreads(home: string): void {
  CREATED.forEach((created, i) => {
    const path = writeMinimalRollout(home, { threadId: id(i + 1), created, message: `thread ${i + 1}${i % 2 === 0 ? ' banana' : ''}` });
    utimesSync(path, new Date(UPDATED[i]!), new Date(UPDATED[i]!));
  });
}

/** The id of the section the reference's interactive client lists at start ("Pinned"). */
const PINNED_SECTION = '01984de2-8f74-7c91-a3b2-5c5e937cf318';

const names = (page: Message) => page.data.map((t: Message) => `T${Number(t.id.slice(-1))}`);
const summary = (page: Message) => [names(page), page.nextCursor, page.backwardsCursor];

/** Rollouts whose names disagree with their creation, with every kind of source and provider. */
function writeSourcesAndProviders(home: string): void {
  const write = (n: number, rollout: Partial<MinimalRollout>) => writeMinimalRollout(home, { threadId: id(n), created: '2026-11-01T10:00:00.000Z', message: `m${n}`, ...rollout });
  write(1, { created: '2026-11-01T12:00:00.500Z', namedAt: '2026-11-01T10:00:00.000Z' });
  write(2, { created: '2026-11-01T10:00:00.750Z', namedAt: '2026-11-01T12:00:00.000Z' });
  write(3, { namedAt: '2026-11-01T13:00:00.000Z', source: 'exec' });
  write(4, { namedAt: '2026-11-01T14:00:00.000Z', source: 'mcp' });
  write(5, { namedAt: '2026-11-01T15:00:00.000Z', source: { subagent: { thread_spawn: { parent_thread_id: id(1), depth: 1, agent_type: 'reviewer' } } } });
  write(6, { namedAt: '2026-11-01T16:00:00.000Z', source: { custom: 'unreadable' } });
  write(7, { namedAt: '2026-11-01T17:00:00.000Z', modelProvider: 'other' });
  write(8, { namedAt: '2026-11-01T18:00:00.000Z', source: 'cli', modelProvider: 'mock_provider' });
}

/** Each listed thread as [name, source, provider, agent role, createdAt]. */
const shownBy = async (server: TestServer, params: Message) =>
  (await server.request('thread/list', params)).data.map((t: Message) => [`T${Number(t.id.slice(-1))}`, t.source, t.modelProvider, t.agentRole, t.createdAt]);

describe('thread/list', () => {
  test('pages by creation and by update, forward and back, with the reference cursors', async () => {
    const server = await TestServer.start();
    writeThreads(server.home);
    try {
      const list = (params: Message) => server.request('thread/list', { limit: 2, ...params });
      const p0 = await list({});
      expect(summary(p0)).toEqual([['T5', 'T4'], `2026-12-02T10:00:04Z|${id(4)}`, '2026-12-02T10:00:04.899Z']);
      const p1 = await list({ cursor: p0.nextCursor });
      expect(summary(p1)).toEqual([['T3', 'T2'], `2026-12-02T10:00:02Z|${id(2)}`, '2026-12-02T10:00:03.749Z']);
      expect(summary(await list({ cursor: p1.nextCursor }))).toEqual([['T1'], null, '2026-12-02T10:00:01.249Z']);
      // Back the other way from the second page. Creation times compare in whole seconds, so
      // T3 (10:00:03) falls before its own cursor (10:00:03.749), as with the reference.
      expect(summary(await list({ cursor: p1.backwardsCursor, sortDirection: 'asc' }))).toEqual([['T4', 'T5'], null, '2026-12-02T10:00:04.101Z']);

      const asc = await list({ sortDirection: 'asc' });
      expect(summary(asc)).toEqual([['T1', 'T2'], `2026-12-02T10:00:02Z|${id(2)}`, '2026-12-02T10:00:01.251Z']);

      const updated = await list({ sortKey: 'updated_at' });
      expect(summary(updated)).toEqual([['T2', 'T4'], `2026-12-02T11:00:04Z|${id(4)}`, '2026-12-02T11:00:05.249Z']);
      expect(summary(await list({ sortKey: 'updated_at', cursor: updated.nextCursor, limit: 3 }))).toEqual([['T3', 'T5', 'T1'], null, '2026-12-02T11:00:02.999Z']);
      expect(names(await list({ sortKey: 'updated_at', sortDirection: 'asc', limit: 1, cursor: `2026-12-02T11:00:04.5Z|${id(9)}` }))).toEqual(['T2']);
    } finally {
      await server.close();
    }
  });

  test('filters by included and excluded ids, search term and archive state', async () => {
    const server = await TestServer.start();
    writeThreads(server.home);
    try {
      const list = (params: Message) => server.request('thread/list', params).then(names);
      expect(await list({ includedThreadIds: [id(1), id(4), id(4)] })).toEqual(['T4', 'T1']);
      expect(await list({ includedThreadIds: [] })).toEqual([]);
      expect(await list({ excludedThreadIds: [id(5), id(4)], limit: 2 })).toEqual(['T3', 'T2']);
      expect(await list({ includedThreadIds: [id(1), id(2)], excludedThreadIds: [id(2)] })).toEqual(['T1']);
      expect(await list({ searchTerm: 'banana' })).toEqual(['T5', 'T3', 'T1']);
      expect(await list({ searchTerm: 'BANANA' })).toEqual([]);
      expect(await list({ archived: true })).toEqual([]);
    } finally {
      await server.close();
    }
  });

  test('later listings see appends, replaced files and deletions made between them', async () => {
    const server = await TestServer.start();
    writeThreads(server.home);
    try {
      const list = (params: Message) => server.request('thread/list', { limit: 2, ...params });
      const shown = (page: Message) => page.data.map((t: Message) => [`T${Number(t.id.slice(-1))}`, t.preview, t.updatedAt]);
      const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);
      expect(shown(await list({}))).toEqual([
        ['T5', 'thread 5 banana', seconds(UPDATED[4]!)],
        ['T4', 'thread 4', seconds(UPDATED[3]!)],
      ]);
      // T5 is rewritten in place (as a writer cutting a failed turn back and writing another
      // does: same inode, no shorter) and appended to (a new mtime), T4 replaced by a file with
      // another first message, T3 deleted; the next listings show each, by creation and by
      // update time.
      const path = (n: number) => rolloutPathFor(server.home, id(n), Date.parse(CREATED[n - 1]!));
      writeFileSync(path(5), readFileSync(path(5), 'utf8').replace('thread 5 banana', 'thread 5, cut back and written again'));
      appendFileSync(path(5), '{"timestamp":"2026-12-02T12:00:00.000Z","type":"event_msg","payload":{"type":"agent_message","message":"more"}}\n');
      utimesSync(path(5), new Date('2026-12-02T12:00:00.000Z'), new Date('2026-12-02T12:00:00.000Z'));
      const t4 = readFileSync(path(4), 'utf8');
      rmSync(path(4));
      writeFileSync(path(4), t4.replace('"message":"thread 4"', '"message":"thread 4, rewritten"'));
      utimesSync(path(4), new Date(UPDATED[3]!), new Date(UPDATED[3]!));
      rmSync(path(3));
      expect(shown(await list({}))).toEqual([
        ['T5', 'thread 5, cut back and written again', seconds('2026-12-02T12:00:00.000Z')],
        ['T4', 'thread 4, rewritten', seconds(UPDATED[3]!)],
      ]);
      expect(names(await list({ limit: 5 }))).toEqual(['T5', 'T4', 'T2', 'T1']);
      expect(names(await list({ sortKey: 'updated_at', limit: 5 }))).toEqual(['T5', 'T2', 'T4', 'T1']);
    } finally {
      await server.close();
    }
  });

  test('orders by the time in each name, and shows the interactive sources and the configured provider unless asked for others', async () => {
    // What codex-cli 0.171.0 answered for these rollouts when it was run on them by hand, its
    // config naming `mock_provider` (test/interop compares rollouts of the same kinds with its
    // answers, automatically, where codex is installed). No model is called: the URL is never used.
    const server = await TestServer.start({ modelUrl: 'http://127.0.0.1:9/v1' });
    writeSourcesAndProviders(server.home);
    try {
      const created = (at: string) => Date.parse(at) / 1000;
      // By name: T2 (named 12:00, created 10:00) before T1 (named 10:00, created 12:00); each shows its own creation.
      expect(await shownBy(server, {})).toEqual([
        ['T8', 'cli', 'mock_provider', null, created('2026-11-01T10:00:00Z')],
        ['T2', 'vscode', 'mock_provider', null, created('2026-11-01T10:00:00Z')],
        ['T1', 'vscode', 'mock_provider', null, created('2026-11-01T12:00:00Z')],
      ]);
      expect(await shownBy(server, { sourceKinds: ['exec', 'appServer', 'subAgent', 'unknown'], modelProviders: [] })).toEqual([
        ['T5', { subAgent: { thread_spawn: { parent_thread_id: id(1), depth: 1, agent_path: null, agent_nickname: null, agent_role: 'reviewer' } } }, 'mock_provider', 'reviewer', created('2026-11-01T10:00:00Z')],
        ['T4', 'appServer', 'mock_provider', null, created('2026-11-01T10:00:00Z')],
        ['T3', 'exec', 'mock_provider', null, created('2026-11-01T10:00:00Z')],
      ]);
      expect((await shownBy(server, { modelProviders: ['other'] })).map(([name]: string[]) => name)).toEqual(['T7']);
      expect((await shownBy(server, { modelProviders: [], sortDirection: 'asc' })).map(([name]: string[]) => name)).toEqual(['T1', 'T2', 'T7', 'T8']);
    } finally {
      await server.close();
    }
  });

  test('a home whose config names no provider lists every provider, a rollout recording none as the reference\'s default', async () => {
    const server = await TestServer.start();
    writeSourcesAndProviders(server.home);
    try {
      expect((await shownBy(server, {})).map(([name, , provider]: string[]) => [name, provider])).toEqual([
        ['T8', 'mock_provider'],
        ['T7', 'other'],
        ['T2', 'openai'],
        ['T1', 'openai'],
      ]);
      expect((await shownBy(server, { modelProviders: ['openai'] })).map(([name]: string[]) => name)).toEqual(['T2', 'T1']);
    } finally {
      await server.close();
    }
  });

  test('a preview is the first message with more than whitespace, trimmed, and a thread without one is not listed', async () => {
    // As codex-cli 0.171.0 answers, for rollouts on disk and for threads that take turns here.
    const server = await TestServer.start({ rootConfig: 'thread_unload_delay_secs = 0' });
    writeMinimalRollout(server.home, { threadId: id(1), created: '2026-11-01T10:00:00.000Z', message: '  padded\n' });
    writeMinimalRollout(server.home, { threadId: id(2), created: '2026-11-01T11:00:00.000Z', message: ' \n\t ' });
    try {
      const { thread } = await server.request('thread/start', {});
      const { turn } = await server.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: '  live  ' }] });
      await server.waitForNotification('turn/completed', (p: Message) => p.turn.id === turn.id);
      expect((await server.request('thread/read', { threadId: thread.id })).thread.preview).toBe('live');
      expect((await server.request('thread/list', {})).data.map((t: Message) => [t.id, t.preview])).toEqual([
        [thread.id, 'live'],
        [id(1), 'padded'],
      ]);
      expect((await server.request('thread/read', { threadId: id(2) })).thread.preview).toBe('');

      // A first message of whitespace gives no preview; the second message gives it, loaded or not.
      const blank = (await server.request('thread/start', {})).thread;
      const turnOf = async (text: string) => {
        const { turn: started } = await server.request('turn/start', { threadId: blank.id, input: [{ type: 'text', text }] });
        await server.waitForNotification('turn/completed', (p: Message) => p.turn.id === started.id);
      };
      const previews = async () => [(await server.request('thread/read', { threadId: blank.id })).thread.preview, (await server.request('thread/list', {})).data.map((t: Message) => t.preview)];
      await turnOf(' ');
      expect(await previews()).toEqual(['', ['live', 'padded']]);
      await turnOf(' second ');
      expect(await previews()).toEqual(['second', ['second', 'live', 'padded']]);
      const closed = server.waitForNotification('thread/closed', (p: Message) => p.threadId === blank.id);
      await server.request('thread/unsubscribe', { threadId: blank.id });
      await closed;
      expect(await previews()).toEqual(['second', ['second', 'live', 'padded']]);
    } finally {
      await server.close();
    }
  });

  test('answers bad paging and filter params with the reference errors', async () => {
    const server = await TestServer.start();
    try {
      const refused = (params: Message) => server.request('thread/list', params).catch((e: unknown) => e);
      const many = Array.from({ length: 101 }, () => id(1));
      expect(await refused({ includedThreadIds: many, excludedThreadIds: many })).toEqual(new RpcReplyError(-32602, 'includedThreadIds accepts at most 100 entries'));
      expect(await refused({ excludedThreadIds: many })).toEqual(new RpcReplyError(-32602, 'excludedThreadIds accepts at most 100 entries'));
      expect(await refused({ includedThreadIds: [id(1), 'nope'] })).toEqual(
        new RpcReplyError(-32602, 'invalid included thread id: invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `n` at 1'),
      );
      expect(await refused({ originators: ['t'] })).toEqual(new RpcReplyError(-32602, 'originator filtering is not supported by the local app-server'));
      expect(await refused({ sortKey: 'section_position' })).toEqual(new RpcReplyError(-32600, 'section-position sorting requires a section filter'));
      // thread-host keeps no sections: a section's page is empty even with threads on disk
      // (the interactive client asks for its "Pinned" section at start).
      writeThreads(server.home);
      expect(names(await server.request('thread/list', {}))).toEqual(['T5', 'T4', 'T3', 'T2', 'T1']);
      // An empty page as the reference sends it (reference-answers/all-methods.jsonl): no read states.
      const empty = { data: [], readStates: {}, nextCursor: null, backwardsCursor: null };
      expect(await server.request('thread/list', { sortKey: 'section_position', sectionId: PINNED_SECTION })).toEqual(empty);
      expect(await server.request('thread/list', { sectionId: PINNED_SECTION })).toEqual(empty);
      for (const cursor of ['abc', '', '|', '2026-01-01T00:00:00Z|nope']) {
        expect(await refused({ cursor })).toEqual(new RpcReplyError(-32600, `invalid cursor: ${cursor}`));
      }
      expect(await server.request('thread/list', { cursor: '2026-01-01T00:00:00Z' })).toEqual(empty);
    } finally {
      await server.close();
    }
  });
});
