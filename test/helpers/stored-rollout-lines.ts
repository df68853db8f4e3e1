// What the PostgreSQL thread store holds for a thread, read straight from its tables, and the
// invariants every stored history keeps whatever happened to the hosts that wrote it.
import pg from 'pg';
import { expect } from 'vitest';
import type { PostgresConnection } from '../../src/common/postgres/postgres-connection.js';
import { parseRollout } from '../../src/common/rollout/rollout-reader.js';

export interface StoredLine {
  ordinal: number;
  epoch: number;
  line: string;
}

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

/** The turns a thread's stored records hold: id, status and the text of each item. */
export function storedTurns(lines: StoredLine[]): Array<{ id: string; status: string; texts: string[] }> {
  const parsed = parseRollout(`${lines.map((line) => line.line).join('\n')}\n`);
  return parsed.turns.map((turn) => ({ id: turn.id, status: turn.status, texts: turn.items.map((item) => ('text' in item ? String(item.text) : JSON.stringify('content' in item ? item.content : item.type))) }));
}

/**
 * The invariants every history in the store keeps: ordinals 0..n-1, epochs never decreasing
 * along them. The second is also the fence's: a line written under an epoch a host had lost
 * would follow the first line of the epoch that took the thread from it.
 */
export function expectWellFormed(lines: StoredLine[], context?: string): void {
  expect(lines.map((line) => line.ordinal), context).toEqual(lines.map((_, index) => index));
  expect(
    lines.filter((line, index) => index > 0 && line.epoch < lines[index - 1]!.epoch),
    context,
  ).toEqual([]);
}
