// thread/list's pages come from the thread-listing worker: the real one lists a home as the
// listing code does in-process, and a worker that fails, exits or overruns its deadline costs
// its own listing one clear error, while the next listing gets a new worker.
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { rolloutPathFor } from '../../../../src/common/history/rollout-path.js';
import type { ThreadPageQuery } from '../../../../src/common/thread-listing-messages.js';
import { RolloutHeads } from '../../../../src/listing/rollout-heads.js';
import { listThreadPage } from '../../../../src/listing/thread-page.js';
import { RpcError } from '../../../../src/main/errors.js';
import { ThreadLister } from '../../../../src/main/history/thread-lister.js';
import { FakeClock } from '../../../helpers/fake-clock.js';

const WORKER = fileURLToPath(new URL('../../../../dist/workers/thread-listing.js', import.meta.url));
const FAULTY = fileURLToPath(new URL('../../../fixtures/thread-listing/faulty-thread-listing.mjs', import.meta.url));
const id = (n: number) => `01a23700-0000-7000-8000-00000000000${n}`;

let home: string;
let lister: ThreadLister | null = null;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'thread-lister-'));
});
afterEach(async () => {
  await lister?.close();
  lister = null;
  await rm(home, { recursive: true, force: true });
});

function start(filename: string, clock = new FakeClock()): ThreadLister {
  lister = new ThreadLister({ filename, deadlineMs: 5_000, clock, log: () => undefined });
  return lister;
}

function writeThread(n: number): void {
  const created = `2026-12-02T10:00:0${n}.000Z`;
  const path = rolloutPathFor(home, id(n), Date.parse(created));
  mkdirSync(join(path, '..'), { recursive: true });
  const meta = { timestamp: created, type: 'session_meta', payload: { id: id(n), timestamp: created, cwd: '/w', originator: 'o', cli_version: '1', source: 'vscode', model_provider: 'p', history_mode: 'legacy' } };
  const user = { timestamp: created, type: 'event_msg', payload: { type: 'user_message', message: `thread ${n}`, images: [], local_images: [], text_elements: [] } };
  writeFileSync(path, `${JSON.stringify(meta)}\n${JSON.stringify(user)}\n`);
}

const query = (at: string, size = 2): ThreadPageQuery => ({
  home: at,
  filter: { includedIds: null, excludedIds: null, sources: ['vscode'], modelProviders: null, cwds: null, searchTerm: null, archived: false },
  byCreation: true,
  direction: -1,
  after: null,
  size,
});

const failure = async (listing: Promise<unknown>): Promise<unknown> => {
  const error = await listing.then(
    () => null,
    (caught: unknown) => caught,
  );
  return error instanceof RpcError ? error.toJSON() : error;
};

test('the worker lists a home page by page exactly as the listing code does in-process', async () => {
  [1, 2, 3].forEach(writeThread);
  const threadLister = start(WORKER);
  const first = await threadLister.list(query(home));
  expect(first).toEqual(listThreadPage(new RolloutHeads(), query(home)));
  expect(first.summaries.map((summary) => summary.threadId)).toEqual([id(3), id(2)]);
  expect(first.nextCursor).toBe(`2026-12-02T10:00:02Z|${id(2)}`);
  const next = await threadLister.list({ ...query(home), after: { at: Date.parse('2026-12-02T10:00:02Z'), id: id(2) } });
  expect({ ...next, summaries: next.summaries.map((summary) => summary.threadId) }).toEqual({
    kind: 'page',
    summaries: [id(1)],
    nextCursor: null,
    backwardsCursor: '2026-12-02T10:00:00.999Z',
  });
});

test('a worker that exits fails its listing with a clear error; the next listing gets a new worker', async () => {
  writeThread(1);
  const threadLister = start(FAULTY);
  const [exited, next] = await Promise.all([failure(threadLister.list(query(join(home, 'exit')))), threadLister.list(query(home))]);
  expect(exited).toEqual({ code: -32603, message: 'thread/list failed with message: the thread-listing worker exited' });
  expect(next.summaries.map((summary) => summary.threadId)).toEqual([id(1)]);
});

test('a listing past its deadline fails with the home it was reading, and the worker is replaced', async () => {
  writeThread(1);
  const clock = new FakeClock();
  const threadLister = start(FAULTY, clock);
  const hung = failure(threadLister.list(query(join(home, 'hang'))));
  const queued = threadLister.list(query(home));
  clock.advance(5_000);
  expect(await hung).toEqual({ code: -32603, message: `thread/list failed with message: reading the rollouts under ${join(home, 'hang')}/sessions took longer than 5000 ms` });
  expect((await queued).summaries.map((summary) => summary.threadId)).toEqual([id(1)]);
  expect(clock.activeTimers()).toBe(0);
});

test('a listing that threw in the worker answers its reason, and the worker keeps listing', async () => {
  writeThread(1);
  const threadLister = start(FAULTY);
  expect(await failure(threadLister.list(query(join(home, 'fail'))))).toEqual({ code: -32603, message: 'thread/list failed with message: EIO: i/o error, scandir' });
  expect((await threadLister.list(query(home))).summaries.map((summary) => summary.threadId)).toEqual([id(1)]);
});

test('a home whose sessions/ is not a directory, or is under a file, lists nothing', async () => {
  writeFileSync(join(home, 'sessions'), 'not a directory');
  const threadLister = start(WORKER);
  const empty = { kind: 'page', summaries: [], nextCursor: null, backwardsCursor: null };
  expect(await threadLister.list(query(home))).toEqual(empty);
  expect(await threadLister.list(query(join(home, 'sessions')))).toEqual(empty);
});

test('close fails what is in flight, and listings after it fail at once', async () => {
  const threadLister = start(FAULTY);
  const hung = failure(threadLister.list(query(join(home, 'hang'))));
  await threadLister.close();
  const after = failure(threadLister.list(query(home)));
  expect(await Promise.all([hung, after])).toEqual([
    { code: -32603, message: 'thread/list failed with message: the thread-listing worker exited' },
    { code: -32603, message: 'thread/list failed with message: the thread-listing worker exited' },
  ]);
});
