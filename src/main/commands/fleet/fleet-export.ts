// `thread-host fleet export THREAD_ID`: writes a stored thread back as the reference's rollout
// file, byte for byte the lines the store holds (but for a fork or revert made on the store:
// exported-rollout-text.ts): under <home>/sessions/YYYY/MM/DD/ with the
// file name it was imported with (or the one the reference would give it), or under
// <home>/archived_sessions/ when archived, its mtime the thread's last update. A file already
// there is never overwritten: one with the same bytes is reported as there, any other refused.
// A named thread's name goes into the home's session_index.jsonl, as a rename there would.
import { randomUUID } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import type pg from 'pg';
import { readRolloutText, storedThread } from '../../../common/postgres/stored-lines.js';
import { ARCHIVED_SESSIONS_DIR, parseRolloutFileName, rolloutPathFor, SESSIONS_DIR, threadIdOfRolloutName } from '../../../common/rollout/rollout-path.js';
import { fsPromises } from '../../lazy-builtin.js';
import { exportedRolloutText } from './exported-rollout-text.js';
import { ThreadNames } from '../../store/files/thread-names.js';
import type { ThreadId } from '../../../common/thread-id.js';

export type ExportOutcome = { kind: 'written' | 'alreadyThere'; path: string };

/** A problem the command reports as it is (exit 1), without a stack. */
export class FleetCommandError extends Error {}

const READ_DEADLINE_MS = 120_000;

/** Exports `threadId` into `home`. */
export async function exportThread(pool: pg.Pool, threadId: ThreadId, home: string): Promise<ExportOutcome> {
  const thread = await storedThread(pool, threadId);
  if (thread === null) throw new FleetCommandError(`the store has no thread ${threadId}`);
  const stored = await readRolloutText(pool, threadId, { deadlineMs: READ_DEADLINE_MS });
  if (stored === null) throw new FleetCommandError(`the store has no thread ${threadId}`);
  const text = exportedRolloutText(stored);
  if (text === '') throw new FleetCommandError(`thread ${threadId} has no lines in the store yet: there is no rollout to write`);
  const path = exportPath(home, threadId, thread.rolloutName, thread.createdAtMs, thread.archivedAtMs !== null);
  const fs = fsPromises();
  const existing = await fs.readFile(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  if (existing !== null) {
    if (!existing.equals(Buffer.from(text))) throw new FleetCommandError(`${path} already exists and differs from the stored thread; it was left as it is`);
    await exportName(home, threadId, thread.name);
    return { kind: 'alreadyThere', path };
  }
  await fs.mkdir(dirname(path), { recursive: true });
  // Written aside, then linked into place: a reader never sees half a file, and link(2), unlike
  // rename, fails rather than replace a file that appeared meanwhile.
  const temporary = join(dirname(path), `.export-${randomUUID()}.tmp`);
  try {
    await fs.writeFile(temporary, text, { flag: 'wx' });
    // The file's mtime is the thread's update time to the reference and to the files store.
    // Set to the middle of its millisecond: utimes takes seconds as a double, and the whole
    // millisecond would come back one short whenever the division rounds down.
    await fs.utimes(temporary, new Date(), (thread.updatedAtMs + 0.5) / 1000);
    await fs.link(temporary, path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'EEXIST') throw new FleetCommandError(`${path} appeared while exporting; it was left as it is`);
      throw error;
    });
  } finally {
    await fs.rm(temporary, { force: true });
  }
  await exportName(home, threadId, thread.name);
  return { kind: 'written', path };
}

/** Names the thread in `home` as the store does, unless the home already does. */
async function exportName(home: string, threadId: ThreadId, name: string | null): Promise<void> {
  if (name === null) return;
  const names = new ThreadNames(home, () => undefined);
  if (names.get(threadId) !== name) await names.set(threadId, name, Date.now());
}

function exportPath(home: string, threadId: ThreadId, rolloutName: string | null, createdAtMs: number, archived: boolean): string {
  const live = rolloutName === null ? namedPath(home, threadId, createdAtMs) : datedPath(home, rolloutName);
  return archived ? join(home, ARCHIVED_SESSIONS_DIR, basename(live)) : live;
}

/** The reference's path for a thread this host created in the store (its creation time, in local time). */
function namedPath(home: string, threadId: ThreadId, createdAtMs: number): string {
  if (parseRolloutFileName(`rollout-2000-01-01T00-00-00-${threadId}.jsonl`) === null) {
    throw new FleetCommandError(`thread ${threadId} has no rollout file name, and its id is not the UUID a rollout name needs`);
  }
  return rolloutPathFor(home, threadId, createdAtMs);
}

/**
 * sessions/YYYY/MM/DD/<name>: the date directories are the name's own digits, as the reference
 * lays them out. A thread reverted on the store has the name of the file a revert starts
 * (`…_<file id>.jsonl`), which the reference and the files store take for the thread's too.
 */
function datedPath(home: string, name: string): string {
  if (threadIdOfRolloutName(name) === null) throw new FleetCommandError(`the stored rollout name ${JSON.stringify(name)} is not a rollout name`);
  const stamp = name.slice('rollout-'.length, 'rollout-'.length + 10);
  return join(home, SESSIONS_DIR, stamp.slice(0, 4), stamp.slice(5, 7), stamp.slice(8, 10), name);
}
