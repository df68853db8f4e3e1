// `thread-list`: `thread/list` on a home of many threads. One thread takes a turn through the
// server, then it is copied (bench/lib/rollout-copies.ts: each copy with a UUIDv7 id and a
// creation time of its own, spread over four weeks) until the store holds --list-rollouts of
// them: rollout files in the home's day directories, or, on PostgreSQL (case `postgres`, with
// --thread-store postgres or both), the thread's rows. Then a first listing and --list-repeats
// more, which find the heads they already read, while `thread/loaded/list` is probed open loop
// (every --interval-ms) throughout.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { walkRolloutPaths } from '../../src/main/store/files/rollout-locator.js';
import { benchDatabase, postgresStoreConfig } from '../lib/bench-postgres.js';
import { LatencyHistogram } from '../lib/histogram.js';
import { ListProbe, recordWindow, windowStats } from '../lib/list-probe.js';
import { insertThreadCopies, writeRolloutCopies } from '../lib/rollout-copies.js';
import { UNLOAD_NOW } from '../lib/server-home.js';
import type { PostgresConnection } from '../../src/common/postgres/postgres-connection.js';
import { threadWithOneTurn, withServer, type Scenario, type ScenarioCase } from './scenario.js';

const LIST_DEADLINE_MS = 120_000;
const PAGE = 25;
// The reference's rollouts carry its built-in instructions in every session_meta (~21 KB of the
// ~22 KB head); the seed thread gets as much, so the heads read are the size real ones are.
const BASE_INSTRUCTIONS = 'You are a coding agent. Follow the "AGENTS.md" rules,\nkeep changes small, and explain them. '.repeat(230);
// The hosts' lease on PostgreSQL: long, as the listings are what is measured.
const LEASE_MS = 60_000;
const RENEW_MS = 20_000;

/** The one rollout file under `home`/sessions (the seeded thread's), found as the host finds rollouts. */
async function onlyRollout(home: string): Promise<string> {
  const found: string[] = [];
  for await (const path of walkRolloutPaths(home)) found.push(path);
  if (found.length !== 1) throw new Error(`expected one rollout after the seed turn, found ${found.length}`);
  return found[0]!;
}

/** Copies the seed thread `threadId` until the store holds `total` threads; the copies' ids, oldest first. */
async function copyThread(threadId: string, total: number, home: string, database: PostgresConnection | null): Promise<string[]> {
  const copies = database !== null ? await insertThreadCopies(database, threadId, total - 1) : writeRolloutCopies(home, readFileSync(await onlyRollout(home), 'utf8'), threadId, total - 1);
  return copies.map((copy) => copy.id);
}

const FILES_CASE: ScenarioCase = { id: '', k: 0 };
const POSTGRES_CASE: ScenarioCase = { id: 'postgres', k: 0, threadStore: 'postgres' };

export const threadList: Scenario = {
  name: 'thread-list',
  summary: 'thread/list (a page of 25) on a home of --list-rollouts rollouts: the first listing, the repeats, and loaded/list latency beside them',
  cases: (params) => [...(params.threadStores.includes('files') ? [FILES_CASE] : []), ...(params.threadStores.includes('postgres') ? [POSTGRES_CASE] : [])],
  async run(ctx, scenarioCase) {
    const { rec, params } = ctx;
    const database = scenarioCase.threadStore === 'postgres' ? await benchDatabase(params.postgresUrl) : null;
    const rootConfig = database === null ? UNLOAD_NOW : `${postgresStoreConfig(database, LEASE_MS, RENEW_MS)}\n${UNLOAD_NOW}`;
    await withServer(ctx, { rootConfig }, async (client, home) => {
      const threadId = await threadWithOneTurn(client, 'hello', { baseInstructions: BASE_INSTRUCTIONS });
      const copies = await copyThread(threadId, params.listRollouts, home, database);
      // Newest first: the seed thread, then the newest copies.
      const newest = [threadId, ...copies.slice(-(PAGE - 1)).reverse()].join(' ');
      ctx.progress(0.2);
      const probe = new ListProbe(client, params.intervalMs);
      const first = new LatencyHistogram();
      const repeats = new LatencyHistogram();
      // Taken first, so the probe's first request (sent as it starts) is in the window.
      const probeStart = performance.now();
      probe.start();
      for (let i = 0; i <= params.listRepeats; i += 1) {
        const sentAt = performance.now();
        const { result, at } = await client.requestTimed('thread/list', { limit: PAGE }, LIST_DEADLINE_MS);
        (i === 0 ? first : repeats).recordMs(at - sentAt);
        const data = result.data as Array<{ id: string; createdAt: number }>;
        rec.check(new Set(data.map((thread) => thread.createdAt)).size === data.length, `listing ${i}: copies share creation times`);
        rec.check(data.length === Math.min(PAGE, params.listRollouts), `listing ${i}: ${data.length} threads on a page of ${PAGE}`);
        rec.check(data.map((thread) => thread.id).join(' ') === newest, `listing ${i}: not the newest threads, newest first`);
        rec.check((result.nextCursor !== null) === params.listRollouts > PAGE, `listing ${i}: nextCursor ${String(result.nextCursor)}`);
        ctx.progress(0.2 + (0.8 * (i + 1)) / (params.listRepeats + 1));
      }
      const probeEnd = performance.now();
      const samples = await probe.stop();
      rec.latency('thread/list, first', first);
      rec.latency('thread/list, repeated', repeats);
      recordWindow(rec, 'loaded/list during the listings', windowStats(samples, probeStart, probeEnd));
    });
  },
};
