// Stored history comes from two stored-history workers, one for listings and one for reads:
// the real one answers exactly as its code does in-process (a read as the bytes of its
// result), and a worker that fails, exits or overruns its deadline costs its own request one
// clear error, while the next request gets a new worker and the other lane goes on.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, readdirSync } from 'node:fs';
import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import { RpcError } from '../../../../src/common/errors.js';
import type { StoredRead, ThreadPageQuery } from '../../../../src/common/stored-history-messages.js';
import { StoredHistory } from '../../../../src/main/store/stored-history.js';
import { ListingMemory } from '../../../../src/stored-reads/listing-memory.js';
import { answerStoredHistory } from '../../../../src/stored-reads/stored-history-jobs.js';
import { FakeClock } from '../../../helpers/fake-clock.js';
import { fixedThreadId as id } from '../../../helpers/fixed-ids.js';
import { writeMinimalRollout } from '../../../helpers/minimal-rollout.js';

const WORKER = fileURLToPath(new URL('../../../../dist/workers/stored-history.js', import.meta.url));
const FAULTY = fileURLToPath(new URL('../../../fixtures/stored-history/faulty-stored-history.mjs', import.meta.url));
const LEGACY = fileURLToPath(new URL('../../../fixtures/rollouts/rollout-legacy-two-turns.jsonl', import.meta.url));
const LEGACY_ID = '01a23672-ea80-7301-8e95-16757bdc1196';

let home: string;
let history: StoredHistory | null = null;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'stored-history-'));
});
afterEach(async () => {
  await history?.close();
  history = null;
  await rm(home, { recursive: true, force: true });
});

/** What the host logged, as [level, message, fields]. */
let logged: unknown[][] = [];

function start(filename: string, clock = new FakeClock()): StoredHistory {
  logged = [];
  const started = StoredHistory.inWorkers({ filename, deadlineMs: 5_000, clock, log: (...entry: unknown[]) => void logged.push(entry) });
  history = started;
  return started;
}

/** Waits until a thread of this process is blocked in openat(2) (Linux: /proc/self/task/<tid>/syscall). */
async function untilAThreadIsInOpen(): Promise<void> {
  const OPENAT = process.arch === 'arm64' ? '56 ' : '257 '; // the syscall's number, as /proc prints it
  await vi.waitFor(() => expect(readdirSync('/proc/self/task').some((tid) => readFileSync(`/proc/self/task/${tid}/syscall`, 'utf8').startsWith(OPENAT))).toBe(true), { timeout: 5_000 });
}

function writeThread(n: number): void {
  writeMinimalRollout(home, { threadId: id(n), created: `2026-12-02T10:00:0${n}.000Z`, message: `thread ${n}` });
}

/** The legacy sample rollout, copied into the home; its path. */
function legacyRollout(): string {
  const path = join(home, 'rollout-2026-12-02T11-10-30-01a23672-ea80-7301-8e95-16757bdc1196.jsonl');
  copyFileSync(LEGACY, path);
  return path;
}

const query = (at: string, size = 2): ThreadPageQuery => ({
  source: { store: 'files', home: at },
  archived: false,
  filter: { includedIds: null, excludedIds: null, sources: ['vscode'], modelProviders: null, cwds: null, searchTerm: null },
  namedModelProvider: null,
  byCreation: true,
  direction: -1,
  after: null,
  size,
});

const read = (path: string, includeTurns = true): StoredRead => ({ kind: 'read', threadId: LEGACY_ID, location: { store: 'files', path }, includeTurns, namedModelProvider: null, threadName: null, metadata: null });

/** What the same request gives in-process, as the JSON its bytes hold. */
async function inProcess(request: StoredRead): Promise<unknown> {
  const reply = await answerStoredHistory(new ListingMemory(), request);
  if (reply.kind !== 'answer') throw new Error(`expected an answer, got ${reply.kind}`);
  return JSON.parse(Buffer.from(reply.json).toString('utf8'));
}

const failure = async (request: Promise<unknown>): Promise<unknown> => {
  const error = await request.then(
    () => null,
    (caught: unknown) => caught,
  );
  return error instanceof RpcError ? error.toJSON() : error;
};

const exited = (method: string) => ({ code: -32603, message: `${method} failed with message: the stored-history worker exited` });

test('the worker lists a home page by page exactly as the listing code does in-process', async () => {
  [1, 2, 3].forEach(writeThread);
  const stored = start(WORKER);
  const first = await stored.listPage(query(home));
  expect(first).toEqual(await answerStoredHistory(new ListingMemory(), { kind: 'list', query: query(home) }));
  expect(first.summaries.map((summary) => summary.threadId)).toEqual([id(3), id(2)]);
  expect(first.nextCursor).toBe(`2026-12-02T10:00:02Z|${id(2)}`);
  const next = await stored.listPage({ ...query(home), after: { at: Date.parse('2026-12-02T10:00:02Z'), id: id(2) } });
  expect({ ...next, summaries: next.summaries.map((summary) => summary.threadId) }).toEqual({
    kind: 'page',
    summaries: [id(1)],
    nextCursor: null,
    backwardsCursor: '2026-12-02T10:00:00.999Z',
  });
});

test('a read, a turns page and an items page of a stored thread come back as the bytes of their results', async () => {
  const path = legacyRollout();
  const stored = start(WORKER);
  const answer = await stored.read(read(path), 'thread/read');
  if (answer.kind !== 'answer') throw new Error(answer.kind);
  expect(answer.historyMode).toBe('legacy');
  const thread = JSON.parse(answer.result.bytes.toString('utf8')) as { thread: { id: string; status: unknown; preview: string; turns: Array<{ status: string }> } };
  expect(thread).toEqual(await inProcess(read(path)));
  expect([thread.thread.id, thread.thread.status, thread.thread.preview, thread.thread.turns.map((turn) => turn.status)]).toEqual([LEGACY_ID, { type: 'notLoaded' }, 'hello', ['completed', 'completed']]);
  const withoutTurns = await stored.read(read(path, false), 'thread/read');
  expect(withoutTurns.kind === 'answer' && JSON.parse(withoutTurns.result.bytes.toString('utf8'))).toEqual(await inProcess(read(path, false)));

  const turns: StoredRead = { kind: 'turns', threadId: LEGACY_ID, location: { store: 'files', path }, page: { cursor: null, limit: 1, sortDirection: null, itemsView: null } };
  const page = await stored.read(turns, 'thread/turns/list');
  const pageJson = page.kind === 'answer' && (JSON.parse(page.result.bytes.toString('utf8')) as { data: unknown[]; nextCursor: string | null });
  expect(pageJson).toEqual(await inProcess(turns));
  expect(pageJson && [pageJson.data.length, pageJson.nextCursor !== null]).toEqual([1, true]);

  // Legacy history has no item positions: the reference's -32601, as the page function throws it.
  const items: StoredRead = { kind: 'items', threadId: LEGACY_ID, location: { store: 'files', path }, page: { turnId: null, cursor: null, limit: null, sortDirection: null } };
  expect(await failure(stored.read(items, 'thread/items/list'))).toEqual({ code: -32601, message: 'thread/items/list is not supported yet' });
  // An invalid cursor is the request's own error, worded by the page function.
  expect(await failure(stored.read({ ...turns, page: { ...turns.page, cursor: 'nope' } }, 'thread/turns/list'))).toEqual({ code: -32600, message: 'invalid cursor: nope' });
});

test('a rollout without a session_meta is no rollout, and one that went is a failed read', async () => {
  const stored = start(WORKER);
  const torn = join(home, 'torn.jsonl');
  writeFileSync(torn, readFileSync(LEGACY, 'utf8').split('\n').slice(1).join('\n'));
  expect(await stored.read(read(torn), 'thread/read')).toEqual({ kind: 'noRollout' });
  const gone = join(home, 'gone.jsonl');
  expect(await failure(stored.read(read(gone), 'thread/read'))).toEqual({ code: -32603, message: `thread/read failed with message: ENOENT: no such file or directory, open '${gone}'` });
});

test('a worker that exits fails its request with a clear error; the next request gets a new worker', async () => {
  writeThread(1);
  const stored = start(FAULTY);
  const [listing, next, reading] = await Promise.all([failure(stored.listPage(query(join(home, 'exit')))), stored.listPage(query(home)), failure(stored.read(read(join(home, 'exit')), 'thread/read'))]);
  expect(listing).toEqual(exited('thread/list'));
  expect(next.summaries.map((summary) => summary.threadId)).toEqual([id(1)]);
  expect(reading).toEqual(exited('thread/read'));
});

test('a request past its deadline fails with what it was reading, and its worker is replaced; the next waits for that', async () => {
  writeThread(1);
  const clock = new FakeClock();
  const stored = start(FAULTY, clock);
  const hungList = failure(stored.listPage(query(join(home, 'hang'))));
  const hungRead = failure(stored.read(read(join(home, 'hang')), 'thread/turns/list'));
  const queued = stored.listPage(query(home));
  // Listings and reads each have their worker: both deadlines run at once.
  expect(clock.activeTimers()).toBe(2);
  clock.advance(5_000);
  expect(await hungList).toEqual({ code: -32603, message: `thread/list failed with message: reading the rollouts under ${join(home, 'hang')}/sessions did not finish or report progress within 5000 ms` });
  expect(await hungRead).toEqual({ code: -32603, message: `thread/turns/list failed with message: reading ${join(home, 'hang')} did not finish or report progress within 5000 ms` });
  expect((await queued).summaries.map((summary) => summary.threadId)).toEqual([id(1)]);
  expect(clock.activeTimers()).toBe(0);
  expect(logged).toEqual([
    ['error', 'stored-history listing worker overran its deadline; replacing it', { deadlineMs: 5_000, request: 'list', home: join(home, 'hang') }],
    ['error', 'stored-history reading worker overran its deadline; replacing it', { deadlineMs: 5_000, request: 'read', history: join(home, 'hang') }],
  ]);
});

test('progress from the worker restarts the deadline: a long request that keeps going is answered', async () => {
  const clock = new FakeClock();
  const stored = start(FAULTY, clock);
  const slow = stored.read(read(join(home, 'slow')), 'thread/read');
  clock.advance(3_000);
  // The progress message re-arms the deadline (a second timer) from now, 3 s in.
  await vi.waitFor(() => expect(clock.timersSet).toBe(2), { timeout: 10_000 });
  clock.advance(4_000); // 7 s after the start: past the first deadline, not the second
  expect(await slow).toEqual({ kind: 'noRollout' });
  expect(clock.activeTimers()).toBe(0);
});

test('a read blocked in a system call holds no listing up; its worker is not replaced until it exits: reads wait, then fail as stuck, then are served again', async () => {
  const fifo = join(home, 'fifo');
  execFileSync('mkfifo', [fifo]);
  const path = legacyRollout();
  writeThread(1);
  const clock = new FakeClock();
  const stored = start(FAULTY, clock);
  const blocked = failure(stored.read(read(fifo), 'thread/read'));
  await untilAThreadIsInOpen();
  clock.advance(5_000);
  expect(await blocked).toEqual({ code: -32603, message: `thread/read failed with message: reading ${fifo} did not finish or report progress within 5000 ms` });
  // Terminated, but blocked in open(2): the next read waits rather than starting a second worker.
  const waiting = failure(stored.read(read(path), 'thread/read'));
  expect((await stored.listPage(query(home))).summaries.map((summary) => summary.threadId)).toEqual([id(1)]);
  clock.advance(5_000);
  const stuck = {
    code: -32603,
    message: 'thread/read failed with message: the stored-history worker is still blocked in a read that made no progress for 5000 ms (a hung filesystem?); retry once it returns',
  };
  expect(await waiting).toEqual(stuck);
  expect(await failure(stored.read(read(path), 'thread/read'))).toEqual(stuck);
  // The filesystem answers: open(2) returns, the worker ends, and the next read gets a new one.
  // Non-blocking: with no reader (the worker not in open(2)) this throws ENXIO instead of hanging.
  closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
  await vi.waitFor(async () => expect((await stored.read(read(path, false), 'thread/read')).kind).toBe('answer'), { timeout: 10_000 });
});

test('a request that threw in the worker answers its reason, and the worker keeps serving', async () => {
  writeThread(1);
  const stored = start(FAULTY);
  expect(await failure(stored.listPage(query(join(home, 'fail'))))).toEqual({ code: -32603, message: 'thread/list failed with message: EIO: i/o error, read' });
  expect(await failure(stored.read(read(join(home, 'fail')), 'thread/read'))).toEqual({ code: -32603, message: 'thread/read failed with message: EIO: i/o error, read' });
  expect((await stored.listPage(query(home))).summaries.map((summary) => summary.threadId)).toEqual([id(1)]);
  // Worded by the host, so the router would not log them: logged here, with where they read.
  expect(logged).toEqual([
    ['error', 'thread/list failed in the stored-history worker', { request: 'list', home: join(home, 'fail'), error: 'EIO: i/o error, read' }],
    ['error', 'thread/read failed in the stored-history worker', { request: 'read', history: join(home, 'fail'), error: 'EIO: i/o error, read' }],
  ]);
});

test('a home whose sessions/ is not a directory, or is under a file, lists nothing', async () => {
  writeFileSync(join(home, 'sessions'), 'not a directory');
  const stored = start(WORKER);
  const empty = { kind: 'page', summaries: [], nextCursor: null, backwardsCursor: null };
  expect(await stored.listPage(query(home))).toEqual(empty);
  expect(await stored.listPage(query(join(home, 'sessions')))).toEqual(empty);
});

test('close fails what is in flight, and requests after it fail at once', async () => {
  const stored = start(FAULTY);
  const hung = failure(stored.listPage(query(join(home, 'hang'))));
  await stored.close();
  const after = failure(stored.read(read(home), 'thread/read'));
  expect(await Promise.all([hung, after])).toEqual([exited('thread/list'), exited('thread/read')]);
});
