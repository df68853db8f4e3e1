// What thread-host keeps of a thread in a home besides its rollout and name, brought into the
// PostgreSQL store by `fleet import` (fleet-import.ts) while it holds the thread: its read state
// (thread-host-read-state.jsonl), its metadata (thread-host-metadata.jsonl) and its queued input
// (thread-queues/<id>.json), read with the files store's own parsers. Each goes in only where the
// store holds none of it for the thread, by one statement that checks and sets at once, so what a
// host recorded since is never replaced: the same state again is "unchanged", another is
// reported and left as it is.
import { join } from 'node:path';
import type pg from 'pg';
import { adoptMetadata, type StoredMetadata } from '../../../common/postgres/metadata-patches.js';
import { readQueue, writeQueue } from '../../../common/postgres/queued-input.js';
import { adoptReceipt, type StoredUnread } from '../../../common/postgres/read-receipts.js';
import type { ThreadMetadataView } from '../../../common/stored-history-messages.js';
import { fsPromises } from '../../lazy-builtin.js';
import { METADATA_FILE, metadataIn } from '../../store/files/thread-metadata.js';
import { lineOf, positionOf, READ_STATES_FILE, readStatesIn, type Receipt } from '../../store/files/thread-read-states.js';
import { QUEUES_DIR, queueIn, type QueuedSubmission } from '../../store/files/queues/thread-queue-store.js';
import { metadataViewOf } from '../../store/postgres/postgres-thread-metadata.js';
import type { ThreadId } from '../../../common/thread-id.js';

export type StateKind = 'readState' | 'metadata' | 'queue';

/** What happened to one kind of a thread's state; `inputs` counts a queue's submissions. */
export interface StateOutcome {
  kind: 'state';
  what: StateKind;
  threadId: string;
  result: 'imported' | 'unchanged' | 'skipped';
  inputs: number;
}

const STATEMENT_DEADLINE_MS = 60_000;

export class HomeThreadState {
  private constructor(
    private readonly home: string,
    private readonly readStates: Map<string, Receipt>,
    private readonly metadata: Map<string, ThreadMetadataView>,
    /** Who the queue writes are announced as (a host's listener ignores none of them). */
    private readonly origin: string,
  ) {}

  /** Reads the home's read states and metadata (queues are read per thread). */
  static async read(home: string, origin: string): Promise<HomeThreadState> {
    const [readStates, metadata] = await Promise.all([homeLines(join(home, READ_STATES_FILE)), homeLines(join(home, METADATA_FILE))]);
    return new HomeThreadState(home, readStatesIn(readStates), metadataIn(metadata), origin);
  }

  /** Brings the thread's state into the store, which holds the thread's row; one outcome per kind the home has. */
  async importThread(pool: pg.Pool, threadId: ThreadId): Promise<StateOutcome[]> {
    const id = threadId;
    const outcomes: StateOutcome[] = [];
    const outcome = (what: StateKind, result: StateOutcome['result'], inputs = 0) => outcomes.push({ kind: 'state', what, threadId, result, inputs });
    const receipt = this.readStates.get(id);
    if (receipt !== undefined) outcome('readState', await importReceipt(pool, threadId, receipt));
    const metadata = this.metadata.get(id);
    if (metadata !== undefined) outcome('metadata', await importMetadata(pool, threadId, metadata));
    const queue = await this.#queue(id);
    if (queue.length > 0) outcome('queue', await this.#importQueue(pool, threadId, queue), queue.length);
    return outcomes;
  }

  async #queue(id: string): Promise<QueuedSubmission[]> {
    const path = join(this.home, QUEUES_DIR, `${id}.json`);
    const text = await fsPromises()
      .readFile(path, 'utf8')
      .catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return null;
        throw error;
      });
    if (text === null) return [];
    try {
      return queueIn(text);
    } catch (error) {
      throw new Error(`${path} is not a queue file: ${String(error)}`);
    }
  }

  // Written only where the store has no queue (version 0); a queue a host wrote, even one
  // drained since, is the thread's.
  async #importQueue(pool: pg.Pool, threadId: ThreadId, queue: QueuedSubmission[]): Promise<StateOutcome['result']> {
    const call = { deadlineMs: STATEMENT_DEADLINE_MS };
    let stored = await readQueue<QueuedSubmission>(pool, threadId, call);
    if (stored.version === 0) {
      if (await writeQueue(pool, { threadId, origin: this.origin, submissions: queue, expectedVersion: 0 }, call)) return 'imported';
      stored = await readQueue<QueuedSubmission>(pool, threadId, call);
    }
    return canonicalJson(stored.submissions) === canonicalJson(queue) ? 'unchanged' : 'skipped';
  }
}

async function importReceipt(pool: pg.Pool, threadId: ThreadId, receipt: Receipt): Promise<StateOutcome['result']> {
  const home = { firstUnread: lineOf(receipt.firstUnread) as StoredUnread | null, revision: receipt.revision, lastPublishedTurn: receipt.lastPublishedTurn };
  const adopted = await adoptReceipt(pool, threadId, home, { deadlineMs: STATEMENT_DEADLINE_MS });
  if (adopted === null) throw new Error(`the store lost thread ${threadId} while importing it`);
  if (adopted.changed) return 'imported';
  const stored = adopted.receipt;
  const same =
    stored.revision === receipt.revision &&
    stored.lastPublishedTurn === receipt.lastPublishedTurn &&
    canonicalJson(positionOf(stored.firstUnread) ?? null) === canonicalJson(receipt.firstUnread);
  return same ? 'unchanged' : 'skipped';
}

async function importMetadata(pool: pg.Pool, threadId: ThreadId, view: ThreadMetadataView): Promise<StateOutcome['result']> {
  const git = view.gitInfo;
  const home: StoredMetadata = { gitInfo: git === null ? null : { sha: git.sha, branch: git.branch, origin_url: git.originUrl }, daybreakEnabled: view.daybreakEnabled };
  const adopted = await adoptMetadata(pool, threadId, home, { deadlineMs: STATEMENT_DEADLINE_MS });
  if (adopted === null) throw new Error(`the store lost thread ${threadId} while importing it`);
  if (adopted.changed) return 'imported';
  return canonicalJson(metadataViewOf(adopted.metadata)) === canonicalJson(view) ? 'unchanged' : 'skipped';
}

/** A file's lines; none when it does not exist (any other failure is the import's). */
async function homeLines(path: string): Promise<string[]> {
  const text = await fsPromises()
    .readFile(path, 'utf8')
    .catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return '';
      throw error;
    });
  return text.split('\n');
}

// jsonb keeps an object's keys in its own order: values are compared with their keys sorted.
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, member: unknown) =>
    member !== null && typeof member === 'object' && !Array.isArray(member)
      ? Object.fromEntries(Object.entries(member as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : member,
  );
}
