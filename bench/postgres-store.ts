// The PostgreSQL thread store's two hot statements, one at a time on one connection, as a host
// runs them: the fenced append of a turn-sized batch (what each acknowledged turn waits for)
// and the acquisition of a thread (what a load waits for), both of a fresh and of a released
// thread. It reports the server's durability settings beside the figures, since a commit's
// flush is most of an append's cost. Rows are written under thread ids of this run alone.
//   node dist/bench/postgres-store.js [--url postgresql://…] [--appends 2000] [--acquisitions 500]
//        [--batch 5] [--line-bytes 600]
// Without --url, libpq's PG* variables name the database.
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { appendLines } from '../src/common/postgres/fenced-append.js';
import { registerHost, retireHost } from '../src/common/postgres/host-lease.js';
import { openPostgresPool } from '../src/common/postgres/postgres-connection.js';
import { migrateSchema } from '../src/common/postgres/schema-migrations.js';
import { acquireThread, releaseThread } from '../src/common/postgres/thread-ownership.js';
import { positiveInt } from './lib/bench-options.js';
import { LatencyHistogram, type LatencySummary } from './lib/histogram.js';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { url: { type: 'string' }, appends: { type: 'string' }, acquisitions: { type: 'string' }, batch: { type: 'string' }, 'line-bytes': { type: 'string' } },
  strict: true,
});
const APPENDS = positiveInt(values.appends, 'appends', 2_000);
const ACQUISITIONS = positiveInt(values.acquisitions, 'acquisitions', 500);
const BATCH = positiveInt(values.batch, 'batch', 5);
const LINE_BYTES = positiveInt(values['line-bytes'], 'line-bytes', 600);
// Unmeasured first runs of each statement: connection set-up, plan caching, the JIT.
const WARMUP = 50;

const connection = { url: values.url ?? null };
await migrateSchema(connection);
const pool = openPostgresPool(connection, { max: 1, name: 'bench postgres-store' });
const hostId = await registerHost(pool, 'ws://127.0.0.1:1', 600_000);

/** Times `run` `count` times after the warm-up, one call at a time. */
async function timed(count: number, run: (i: number) => Promise<unknown>): Promise<LatencySummary> {
  const histogram = new LatencyHistogram();
  for (let i = 0; i < WARMUP + count; i += 1) {
    const started = performance.now();
    await run(i);
    if (i >= WARMUP) histogram.recordMs(performance.now() - started);
  }
  return histogram.summary();
}

/** A batch of rollout-like lines of about LINE_BYTES each. */
function batchOf(turn: number): string[] {
  const filler = 'x'.repeat(Math.max(0, LINE_BYTES - 120));
  return Array.from({ length: BATCH }, (_, i) => JSON.stringify({ timestamp: new Date().toISOString(), type: 'event_msg', payload: { type: 'agent_message', turn, i, message: filler } }));
}

try {
  const settings = await pool.query<{ name: string; setting: string }>(
    `SELECT name, setting FROM pg_settings WHERE name IN ('synchronous_commit', 'fsync', 'wal_sync_method') ORDER BY name`,
  );
  const threadId = `bench-append-${randomUUID()}`;
  const owned = await acquireThread(pool, { threadId, hostId, create: true, historyMode: 'legacy' });
  if (owned.kind !== 'acquired') throw new Error(`could not acquire ${threadId}: ${owned.kind}`);
  let next = 0;
  const append = await timed(APPENDS, async (turn) => {
    const outcome = await appendLines(pool, { threadId, hostId, epoch: owned.epoch, expectedNext: next, lines: batchOf(turn) });
    if (outcome.kind !== 'appended') throw new Error(`append fenced at ${next}`);
    next = outcome.nextOrdinal;
  });
  const fresh = await timed(ACQUISITIONS, (i) => acquireThread(pool, { threadId: `bench-acquire-${randomUUID()}-${i}`, hostId, create: true }));
  let epoch = owned.epoch;
  await releaseThread(pool, { threadId, hostId, epoch });
  const released = await timed(ACQUISITIONS, async () => {
    const outcome = await acquireThread(pool, { threadId, hostId, create: false });
    if (outcome.kind !== 'acquired') throw new Error(`could not take ${threadId} back`);
    epoch = outcome.epoch;
    await releaseThread(pool, { threadId, hostId, epoch });
  });
  const line = (name: string, s: LatencySummary) => `${name.padEnd(34)} n=${s.count}  p50 ${s.p50} ms  p90 ${s.p90} ms  p99 ${s.p99} ms  max ${s.max} ms`;
  process.stdout.write(
    [
      `server: ${settings.rows.map((row) => `${row.name}=${row.setting}`).join(', ')}`,
      line(`fenced append, ${BATCH} lines of ~${LINE_BYTES} B`, append),
      line('acquire, new thread', fresh),
      line('acquire + release, released thread', released),
    ].join('\n') + '\n',
  );
} finally {
  await retireHost(pool, hostId).catch(() => undefined);
  await pool.end();
}
