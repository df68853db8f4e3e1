// One page of `thread/list` from the PostgreSQL thread store, with the same filters, order and
// cursors as a listing of rollout files (thread-page.ts): the store pages by creation or update
// time (src/common/postgres/stored-lines.ts), and each thread's head (its first lines, up to
// the first user message) is parsed by the same reader a file's head is. Loaded only by a
// worker of a host on that store (stored-history-jobs.ts imports it dynamically).
import type { PostgresConnection } from '../../common/postgres/postgres-connection.js';
import type { ListedThread } from '../../common/postgres/stored-lines.js';
import { parseRollout } from '../../common/rollout/rollout-reader.js';
import type { RolloutSummary, ThreadPage, ThreadPageQuery } from '../../common/stored-history-messages.js';
import { rolloutHead } from '../head-reads.js';
import { storedThreadPreview } from '../../common/rollout/thread-preview.js';
import { readerPool } from './postgres-reads.js';
import { filters, timestamp } from '../thread-page.js';
import { threadIdOf } from '../../common/thread-id.js';

// Threads fetched per round trip; a page of the default 25 with one more row fits in one.
const THREADS_PER_QUERY = 64;

/** What a listing shows of a stored thread, but its update time. */
type StoredHead = Omit<RolloutSummary, 'updatedAtMs'>;

interface Row {
  listed: ListedThread;
  head: StoredHead;
  /** The sort key, in ms. */
  key: number;
}

/** One page for `query` from the store at `connection`. */
export async function listPostgresThreadPage(connection: PostgresConnection, query: ThreadPageQuery): Promise<ThreadPage> {
  const [pool, { listThreads }] = await Promise.all([readerPool(connection), import('../../common/postgres/stored-lines.js')]);
  const { idWanted, headWanted } = filters(query.filter, query.namedModelProvider);
  const { archived, byCreation, direction, size } = query;
  const rows: Row[] = [];
  let after = query.after;
  for (;;) {
    const batch = await listThreads(pool, { archived, byCreation, direction, after, limit: THREADS_PER_QUERY });
    for (const listed of batch) {
      if (!idWanted(listed.threadId)) continue;
      const head = headOf(listed);
      if (head === null || !headWanted(head)) continue;
      rows.push({ listed, head, key: byCreation ? listed.createdAtMs : listed.updatedAtMs });
      if (rows.length > size) break;
    }
    const last = batch.at(-1);
    if (rows.length > size || batch.length < THREADS_PER_QUERY || last === undefined) break;
    after = { at: byCreation ? last.createdAtMs : last.updatedAtMs, id: last.threadId };
  }
  const page = rows.slice(0, size);
  const first = page[0];
  const lastShown = page.at(-1);
  return {
    kind: 'page',
    summaries: page.map(({ listed, head }): RolloutSummary => ({
      ...head,
      preview: storedThreadPreview(listed.firstPreview, head.preview),
      updatedAtMs: listed.updatedAtMs,
      storedName: listed.name,
      storedReceipt: listed.receipt,
      storedMetadata: listed.metadata,
    })),
    nextCursor: lastShown !== undefined && rows.length > size ? `${timestamp(lastShown.key, byCreation ? 'seconds' : 'millis')}|${lastShown.head.threadId}` : null,
    backwardsCursor: first === undefined ? null : timestamp((byCreation ? first.head.createdAtMs : first.key) + direction, 'fixedMillis'),
  };
}

/** The thread's head; null for one the reference would not list (no session_meta of its own, a source it cannot read). */
function headOf(listed: ListedThread): StoredHead | null {
  if (listed.head.length === 0) return null;
  const parsed = parseRollout(`${listed.head.join('\n')}\n`);
  if (parsed.meta === null || parsed.threadId === null || threadIdOf(parsed.threadId) !== threadIdOf(listed.threadId) || parsed.meta.source === null) return null;
  return rolloutHead(listed.threadId, null, parsed, parsed.meta);
}
