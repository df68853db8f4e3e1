// `thread-host fleet import HOME`: copies the rollouts of a home (sessions/ and
// archived_sessions/) into the PostgreSQL store, with their names (session_index.jsonl) where
// the store has none yet, and the state thread-host keeps of each in the home (its read state,
// metadata and queued input: home-thread-state.ts) where the store has none of it. A thread is
// its newest file (a reverted one's older files are part of its history), with any history
// base put in (rollout-file-lines.ts). Idempotent: a thread already stored whole is
// left as it is, one whose file grew since gets the new lines appended, and one whose stored
// lines are not the start of its file (another host wrote it since, or the file was rewritten)
// is reported and skipped, never overwritten.
//
// The import holds each thread as a host of its own would, through the same fenced append, so
// a host loading the thread meanwhile either waits for it (ownedElsewhere) or fences it out.
import { hostname } from 'node:os';
import { basename, join } from 'node:path';
import type pg from 'pg';
import { appendLines } from '../../../common/postgres/fenced-append.js';
import { registerHost, renewHost, retireHost } from '../../../common/postgres/host-lease.js';
import { queryWithin } from '../../../common/postgres/postgres-connection.js';
import { readRolloutText } from '../../../common/postgres/stored-lines.js';
import { acquireThread, releaseThread } from '../../../common/postgres/thread-ownership.js';
import { fsPromises } from '../../lazy-builtin.js';
import { ARCHIVED_SESSIONS_DIR, isNewerRolloutFile, threadIdOfRolloutName } from '../../../common/rollout/rollout-path.js';
import { walkRolloutPaths } from '../../store/files/rollout-locator.js';
import { ThreadNames } from '../../store/files/thread-names.js';
import { HomeThreadState, type StateOutcome } from './home-thread-state.js';
import { rolloutFileLines, withBaseInlined } from './rollout-file-lines.js';
import type { ThreadId } from '../../../common/thread-id.js';

/** What happened to one rollout file. */
export type RolloutOutcome =
  | { kind: 'imported'; threadId: string; lines: number }
  | { kind: 'grown'; threadId: string; lines: number }
  | { kind: 'unchanged'; threadId: string }
  | { kind: 'skipped'; path: string; reason: string };

/** A rollout's outcome, then those of its thread's state (none when the rollout was skipped). */
export type ImportOutcome = RolloutOutcome | StateOutcome;

// The import's lease: renewed while it runs, so a host waits for it; if the import dies, its
// threads are free again this long after.
const IMPORT_LEASE_MS = 60_000;
const IMPORT_RENEW_MS = 15_000;
// Lines per append: one statement each, bounded in count and bytes.
const BATCH_LINES = 1_000;
const BATCH_BYTES = 8 * 1024 * 1024;
// A whole file's lines may take a while to send; each statement still has a deadline.
const STATEMENT_DEADLINE_MS = 60_000;

/** Imports every rollout of `home` and its thread's state, calling `report` with each outcome. */
export async function importHome(pool: pg.Pool, home: string, report: (outcome: ImportOutcome) => void): Promise<void> {
  const endpoint = `fleet-import://${hostname()}/${process.pid}`;
  const state = await HomeThreadState.read(home, endpoint);
  const hostId = await registerHost(pool, endpoint, IMPORT_LEASE_MS);
  let lapsed = false;
  const renewal = setInterval(() => {
    renewHost(pool, hostId, IMPORT_LEASE_MS).then(
      (state) => (lapsed ||= state === 'lapsed'),
      () => undefined, // the next renewal tries again; the lease is four renewals long
    );
  }, IMPORT_RENEW_MS);
  try {
    const names = new ThreadNames(home, () => undefined);
    for await (const { path, archived } of homeRollouts(home)) {
      if (lapsed) throw new Error('the import lost its lease on the database (it stalled past it); run it again');
      for (const outcome of await importFile(pool, hostId, path, archived, names, state)) report(outcome);
    }
  } finally {
    clearInterval(renewal);
    await retireHost(pool, hostId).catch(() => undefined);
  }
}

/**
 * Each thread's rollout in the home, in the order walked: of a reverted thread's files, the
 * newest (the one a revert started last), whose history base holds what it kept of the others.
 */
async function* homeRollouts(home: string): AsyncGenerator<{ path: string; archived: boolean }> {
  const current = new Map<string, { path: string; archived: boolean }>();
  const consider = (path: string, archived: boolean) => {
    const threadId = threadIdOfRolloutName(basename(path))!;
    if (isNewerRolloutFile(path, current.get(threadId)?.path)) current.set(threadId, { path, archived });
  };
  for await (const path of walkRolloutPaths(home)) consider(path, false);
  const dir = join(home, ARCHIVED_SESSIONS_DIR);
  const entries = await fsPromises()
    .readdir(dir, { withFileTypes: true })
    .catch(() => []);
  for (const entry of entries) if (entry.isFile() && threadIdOfRolloutName(entry.name) !== null) consider(join(dir, entry.name), true);
  yield* current.values();
}

async function importFile(pool: pg.Pool, hostId: string, path: string, archived: boolean, names: ThreadNames, state: HomeThreadState): Promise<ImportOutcome[]> {
  const skipped = (reason: string): ImportOutcome[] => [{ kind: 'skipped', path, reason }];
  const [bytes, stat] = await Promise.all([fsPromises().readFile(path), fsPromises().stat(path)]);
  const file = rolloutFileLines(path, withBaseInlined(path, bytes));
  if (file.kind === 'refused') return skipped(file.reason);
  const { threadId } = file;
  const acquired = await acquireThread(pool, {
    threadId,
    hostId,
    create: true,
    historyMode: file.historyMode,
    createdAtMs: file.createdAtMs,
    rolloutName: basename(path),
  });
  if (acquired.kind === 'ownedElsewhere') return skipped(`host ${acquired.endpoint} has the thread loaded; import it again once no host has`);
  if (acquired.kind !== 'acquired') return skipped('the store lost the thread while importing it');
  try {
    const stored = (await readRolloutText(pool, threadId, { deadlineMs: STATEMENT_DEADLINE_MS })) ?? '';
    if (stored.length > file.text.length || file.text.slice(0, stored.length) !== stored) {
      return skipped(`the store holds ${acquired.nextOrdinal} lines of thread ${threadId} that are not the start of this file; left as they are`);
    }
    const fresh = file.lines.slice(acquired.nextOrdinal);
    let next = acquired.nextOrdinal;
    for (const batch of batches(fresh)) {
      const appended = await appendLines(pool, { threadId, hostId, epoch: acquired.epoch, expectedNext: next, lines: batch }, { deadlineMs: STATEMENT_DEADLINE_MS });
      if (appended.kind === 'fenced') return skipped(`another writer took thread ${threadId} during the import (epoch ${appended.epochNow}); run it again`);
      next = appended.nextOrdinal;
    }
    const name = names.get(threadId);
    if (fresh.length > 0 || archived || name !== null) await markImported(pool, threadId, fresh.length > 0 ? Math.floor(stat.mtimeMs) : null, archived, name);
    const rollout: RolloutOutcome =
      fresh.length === 0
        ? { kind: 'unchanged', threadId }
        : { kind: acquired.nextOrdinal === 0 ? 'imported' : 'grown', threadId, lines: fresh.length };
    // Still held: a host loading the thread meanwhile waits, and then finds its state in the store.
    return [rollout, ...(await state.importThread(pool, threadId))];
  } finally {
    await releaseThread(pool, { threadId, hostId, epoch: acquired.epoch }).catch(() => undefined);
  }
}

function* batches(lines: string[]): Generator<string[]> {
  let batch: string[] = [];
  let bytes = 0;
  for (const line of lines) {
    if (batch.length > 0 && (batch.length === BATCH_LINES || bytes + line.length > BATCH_BYTES)) {
      yield batch;
      batch = [];
      bytes = 0;
    }
    batch.push(line);
    bytes += line.length;
  }
  if (batch.length > 0) yield batch;
}

/**
 * The file's mtime as the thread's update time (thread/list's, as the files store shows it),
 * its archived state, and its name unless the store has one (a rename on a host since wins).
 */
async function markImported(pool: pg.Pool, threadId: ThreadId, updatedAtMs: number | null, archived: boolean, name: string | null): Promise<void> {
  await queryWithin(
    pool,
    STATEMENT_DEADLINE_MS,
    `UPDATE threads SET
       updated_at = coalesce(timestamptz 'epoch' + $2::bigint * interval '1 millisecond', updated_at),
       archived_at = CASE WHEN $3 THEN coalesce(archived_at, date_trunc('milliseconds', now())) ELSE archived_at END,
       name = coalesce(name, $4)
     WHERE thread_id = $1`,
    [threadId, updatedAtMs, archived, name],
  );
}
