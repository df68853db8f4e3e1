// Copies of one thread's stored rollout, as many as a large home holds, each the way a real
// thread would have left it: its own UUIDv7 id (whose time is its creation), its own creation
// time, at least a second from every other (thread/list orders and pages by whole seconds),
// and, on the files store, the file name and day directory the reference gives a thread
// created then. Written in bulk: a file is one writev of the source's bytes around the
// copy's id and time; on PostgreSQL a batch of copies is one statement that copies the
// source's rows on the server.
import { randomFillSync } from 'node:crypto';
import { closeSync, mkdirSync, openSync, writevSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import pg from 'pg';
import type { PostgresConnection } from '../../src/common/postgres/postgres-connection.js';
import { rolloutPathFor } from '../../src/common/rollout/rollout-path.js';

export interface RolloutCopy {
  id: string;
  createdAtMs: number;
}

/** The span the copies' creation times are spread over, before the source's: four weeks. */
export const COPY_SPAN_MS = 28 * 86_400_000;

/**
 * `count` copies, oldest first, all created before `sourceCreatedAtMs`: spread evenly over
 * COPY_SPAN_MS (or one a second, further back, when that holds fewer seconds than copies),
 * each in a second of its own, with a sub-second part of its own too.
 */
export function plannedCopies(count: number, sourceCreatedAtMs: number): RolloutCopy[] {
  const stepS = Math.max(1, Math.floor(COPY_SPAN_MS / 1000 / Math.max(1, count)));
  const newestSecond = Math.floor(sourceCreatedAtMs / 1000) - 1;
  const random = Buffer.alloc(count * 16);
  randomFillSync(random);
  return Array.from({ length: count }, (_, i) => {
    const createdAtMs = (newestSecond - (count - 1 - i) * stepS) * 1000 + ((i * 389) % 1000);
    return { id: uuidv7At(createdAtMs, random.subarray(i * 16, i * 16 + 16)), createdAtMs };
  });
}

/** A UUIDv7 for `ms` (RFC 9562): the 48-bit Unix time in ms, version and variant bits, the rest `random` (16 bytes, overwritten). */
export function uuidv7At(ms: number, random: Buffer): string {
  for (let i = 0; i < 6; i += 1) random[i] = Math.floor(ms / 2 ** (8 * (5 - i))) & 0xff;
  random[6] = 0x70 | (random[6]! & 0x0f);
  random[8] = 0x80 | (random[8]! & 0x3f);
  const h = random.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The Unix ms a UUIDv7 carries. */
export function uuidv7Ms(id: string): number {
  return Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16);
}

/** A rollout's session_meta (its first line) and the creation time in it, as written. */
export function sessionMetaOf(text: string): { metaLine: string; created: string } {
  const metaLine = text.slice(0, text.indexOf('\n'));
  const meta = JSON.parse(metaLine) as { type?: string; payload?: { timestamp?: unknown } };
  if (meta.type !== 'session_meta' || typeof meta.payload?.timestamp !== 'string') throw new Error('the rollout does not start with a session_meta that has a timestamp');
  return { metaLine, created: meta.payload.timestamp };
}

/**
 * Writes `count` copies (plannedCopies) of the rollout `text` of thread `threadId` under
 * `home`: the thread id replaced by the copy's throughout, the session_meta's creation time by
 * the copy's, at the path the reference gives a thread of that id created then.
 */
export function writeRolloutCopies(home: string, text: string, threadId: string, count: number): RolloutCopy[] {
  const { metaLine, created } = sessionMetaOf(text);
  const copies = plannedCopies(count, Date.parse(created));
  // The source's bytes, cut where the id (slot 0) or the creation time (slot 1) goes.
  const meta = cut(metaLine, [threadId, created]);
  const rest = cut(text.slice(metaLine.length), [threadId]);
  const pieces = [...meta.pieces.slice(0, -1), Buffer.concat([meta.pieces.at(-1)!, rest.pieces[0]!]), ...rest.pieces.slice(1)];
  const slots = [...meta.slots, ...rest.slots];
  const made = new Set<string>();
  for (const copy of copies) {
    const path = rolloutPathFor(home, copy.id, copy.createdAtMs);
    const dir = dirname(path);
    if (!made.has(dir)) {
      mkdirSync(dir, { recursive: true });
      made.add(dir);
    }
    const values = [Buffer.from(copy.id), Buffer.from(new Date(copy.createdAtMs).toISOString())];
    const chunks: Buffer[] = [pieces[0]!];
    for (let i = 0; i < slots.length; i += 1) chunks.push(values[slots[i]!]!, pieces[i + 1]!);
    const fd = openSync(path, 'wx');
    try {
      writevSync(fd, chunks);
    } finally {
      closeSync(fd);
    }
  }
  return copies;
}

/** `text` cut at every occurrence of any of `keys`: the pieces between, and which key each cut was. */
function cut(text: string, keys: readonly string[]): { pieces: Buffer[]; slots: number[] } {
  const pieces: Buffer[] = [];
  const slots: number[] = [];
  let from = 0;
  for (;;) {
    let at = -1;
    let slot = -1;
    keys.forEach((key, i) => {
      const found = text.indexOf(key, from);
      if (found !== -1 && (at === -1 || found < at)) [at, slot] = [found, i];
    });
    if (at === -1) break;
    pieces.push(Buffer.from(text.slice(from, at)));
    slots.push(slot);
    from = at + keys[slot]!.length;
  }
  pieces.push(Buffer.from(text.slice(from)));
  return { pieces, slots };
}

/** Copies per statement on PostgreSQL. */
const COPIES_PER_STATEMENT = 2_000;

// One batch: the source's threads, thread_owners and rollout_lines rows copied on the server
// under each copy's id (in every line) and creation time (in the session_meta, its line 0),
// released (no owner) at the source's epoch, updated as long after creation as the source was.
const COPY_BATCH = `
  WITH c AS (SELECT * FROM unnest($2::text[], $3::bigint[], $4::text[], $5::text[]) AS c(id, created_ms, rollout_name, created)),
  t AS (
    INSERT INTO threads (thread_id, created_at, updated_at, history_mode, name, rollout_name, head_end, first_preview)
    SELECT c.id, timestamptz 'epoch' + c.created_ms * interval '1 millisecond', timestamptz 'epoch' + c.created_ms * interval '1 millisecond' + (s.updated_at - s.created_at),
           s.history_mode, s.name, c.rollout_name, s.head_end, s.first_preview
    FROM c, threads s WHERE s.thread_id = $1
  ),
  o AS (
    INSERT INTO thread_owners (thread_id, epoch, owner_host, next_ordinal)
    SELECT c.id, s.epoch, NULL, s.next_ordinal FROM c, thread_owners s WHERE s.thread_id = $1
  )
  INSERT INTO rollout_lines (thread_id, ordinal, epoch, line)
  SELECT c.id, l.ordinal, l.epoch, CASE WHEN l.ordinal = 0 THEN replace(replace(l.line, $1, c.id), $6, c.created) ELSE replace(l.line, $1, c.id) END
  FROM c, rollout_lines l WHERE l.thread_id = $1`;

/**
 * Copies thread `threadId` of the PostgreSQL store at `connection` `count` times
 * (plannedCopies), as writeRolloutCopies copies a file (rollout_name is the file's name), in
 * batches; then analyzes the tables, as autovacuum would have a store that grew over weeks.
 */
export async function insertThreadCopies(connection: PostgresConnection, threadId: string, count: number): Promise<RolloutCopy[]> {
  const client = new pg.Client({ connectionString: connection.url ?? undefined, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    const head = await client.query<{ line: string }>('SELECT line FROM rollout_lines WHERE thread_id = $1 AND ordinal = 0', [threadId]);
    if (head.rows.length !== 1) throw new Error(`thread ${threadId} has no stored rows to copy`);
    const { created } = sessionMetaOf(`${head.rows[0]!.line}\n`);
    const copies = plannedCopies(count, Date.parse(created));
    for (let from = 0; from < copies.length; from += COPIES_PER_STATEMENT) {
      const batch = copies.slice(from, from + COPIES_PER_STATEMENT);
      await client.query(COPY_BATCH, [
        threadId,
        batch.map((copy) => copy.id),
        batch.map((copy) => copy.createdAtMs),
        batch.map((copy) => basename(rolloutPathFor('', copy.id, copy.createdAtMs))),
        batch.map((copy) => new Date(copy.createdAtMs).toISOString()),
        created,
      ]);
    }
    await client.query('ANALYZE threads, thread_owners, rollout_lines');
    return copies;
  } finally {
    await client.end();
  }
}
