// What the PostgreSQL thread store holds for a thread, read straight from its tables, and the
// invariants every stored history keeps whatever happened to the hosts that wrote it. The
// fleet's fault suite (test/e2e/fleet-faults.test.ts) and the bench's handoff on PostgreSQL
// both judge the rows with these.
import pg from 'pg';
import type { PostgresConnection } from '../../src/common/postgres/postgres-connection.js';
import { parseRollout } from '../../src/common/rollout/rollout-reader.js';

export interface StoredLine {
  ordinal: number;
  epoch: number;
  line: string;
}

/** A stored turn: its id, status and the text of each item (a user message's holds what was sent). */
export interface StoredTurn {
  id: string;
  status: string;
  texts: string[];
}

/** A thread's rows in ordinal order. */
export async function storedLines(db: PostgresConnection, threadId: string): Promise<StoredLine[]> {
  const client = new pg.Client({ connectionString: db.url!, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    const result = await client.query<{ ordinal: string; epoch: string; line: string }>('SELECT ordinal, epoch, line FROM rollout_lines WHERE thread_id = $1 ORDER BY ordinal', [threadId]);
    return result.rows.map((row) => ({ ordinal: Number(row.ordinal), epoch: Number(row.epoch), line: row.line }));
  } finally {
    await client.end();
  }
}

/** The turns a thread's stored records hold, as the host's own reader parses them. */
export function storedTurns(lines: readonly StoredLine[]): StoredTurn[] {
  const parsed = parseRollout(`${lines.map((line) => line.line).join('\n')}\n`);
  return parsed.turns.map((turn) => ({ id: turn.id, status: turn.status, texts: turn.items.map((item) => ('text' in item ? String(item.text) : JSON.stringify('content' in item ? item.content : item.type))) }));
}

/** Lines whose ordinal is not their position: ordinals run 0..n-1 with no gap or repeat. */
export function misplacedOrdinals(lines: readonly StoredLine[]): StoredLine[] {
  return lines.filter((line, index) => line.ordinal !== index);
}

/**
 * Lines with an epoch lower than the line before. This is also the fence's check: a line
 * written under an epoch a host had lost (after its lockLost) would follow the first line of
 * the epoch that took the thread from it.
 */
export function epochRegressions(lines: readonly StoredLine[]): StoredLine[] {
  return lines.filter((line, index) => index > 0 && line.epoch < lines[index - 1]!.epoch);
}
