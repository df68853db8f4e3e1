// `scale`: N loaded threads on one server (N thread/start, default 10,000), then
//   RSS per loaded thread   ((VmRSS loaded − VmRSS before) / N, over the server's process group)
//   thread/loaded/list      full (no limit) and paged (limit 100, every page walked)
//   thread/read             of loaded threads, spread over the set
//   unload all              unsubscribe every thread → the last thread/closed
//   RSS after unload        0.5 s after the last thread/closed, and again --scale-settle-s later
//                           (sampled every second in between), with its ratio to RSS before,
//                           and the same for its anonymous part (the heaps), beside what file
//                           pages (the node binary's code that running paged in) added
//   further rounds          with --scale-rounds: load and unload all N again, settle, read RSS;
//                           the last round's settled RSS over the first's tells memory kept per
//                           round (a leak) from memory the first use of code paths took once
// Requests go out WINDOW at a time; a -32001 "overloaded" reply is retried after a pause and
// counted, since the reference refuses bursts by design; a "host is full" refusal is not
// retried (nothing would free room) and fails the case. Loading stops at the budget: what
// loaded by then is measured, and the case fails.
//
// The home's config admits N threads (`max_loaded_threads`): a host otherwise sizes its
// admission from the open-file limit at 3 descriptors a thread (lock, rollout, model socket),
// but threads that never take a turn hold only their lock, so N fit where the limit is ≥ N + a
// few hundred. The reference ignores the key.
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { OVERLOADED, RpcReplyError, type AppServerClient, type Json } from '../lib/app-server-client.js';
import { withBareEcho } from '../lib/bare-echo.js';
import { LatencyHistogram } from '../lib/histogram.js';
import { groupResidentKb, groupRssKb, type ResidentKb } from '../lib/proc-rss.js';
import { UNLOAD_NOW } from '../lib/server-home.js';
import { SINGLE_CASE, withServer, type Scenario } from './scenario.js';

/** Requests in flight at once: enough to keep a server busy, below the reference's inbound queue. */
const WINDOW = 16;
const OVERLOAD_PAUSE_MS = 20;
// Enough unpaged lists that p99 is not simply the maximum of a handful.
const LIST_REPEATS = 200;
const PAGE_SIZE = 100;
const PAGED_WALKS = 3;
/** Each measurement phase after loading stops early past this, keeping what it has. */
const PHASE_BUDGET_MS = 60_000;
const UNLOAD_DEADLINE_MS = 600_000;
/** Lets allocator and GC settle before reading RSS. */
const SETTLE_MS = 500;
/** RSS is sampled this often while the host settles after unloading everything. */
const SETTLE_SAMPLE_MS = 1_000;

/** Runs `work(i)` for i in [0, count) with WINDOW in flight, until `until` (performance.now). */
async function windowed(count: number, until: number, work: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  let done = 0;
  const lane = async (): Promise<void> => {
    while (next < count && performance.now() < until) {
      await work(next++);
      done += 1;
    }
  };
  await Promise.all(Array.from({ length: WINDOW }, lane));
  return done;
}

/** A request retried while the server answers "overloaded"; `retries` counts the extra sends. */
async function patiently(client: AppServerClient, retries: { n: number }, method: string, params: unknown): Promise<{ result: Json; at: number; sentAt: number }> {
  for (;;) {
    const sentAt = performance.now();
    try {
      return { ...(await client.requestTimed(method, params)), sentAt };
    } catch (error) {
      if (!(error instanceof RpcReplyError) || error.code !== OVERLOADED || error.message.startsWith('host is full')) throw error;
      retries.n += 1;
      await delay(OVERLOAD_PAUSE_MS);
    }
  }
}

/** Closed-loop timing of `request` until `repeats` or the phase budget. */
async function timedRepeats(repeats: number, request: (i: number) => Promise<{ sentAt: number; at: number }>): Promise<LatencyHistogram> {
  const histogram = new LatencyHistogram();
  const until = performance.now() + PHASE_BUDGET_MS;
  for (let i = 0; i < repeats && performance.now() < until; i += 1) {
    const { sentAt, at } = await request(i);
    histogram.recordMs(at - sentAt);
  }
  return histogram;
}

/** Starts up to `n` threads (until `until`); returns their ids. */
async function loadAll(client: AppServerClient, n: number, until: number, retries: { n: number }, start: LatencyHistogram, progress: (loaded: number) => void): Promise<string[]> {
  const ids: string[] = [];
  await windowed(n, until, async () => {
    const { result, at, sentAt } = await patiently(client, retries, 'thread/start', {});
    start.recordMs(at - sentAt);
    ids.push(result.thread.id as string);
    if (ids.length % 100 === 0) progress(ids.length);
  });
  client.clearBuffer(); // N thread/started notifications nobody waits for
  return ids;
}

/** Unsubscribes every thread; resolves with the time to the last thread/closed. */
async function unloadAll(client: AppServerClient, ids: string[], retries: { n: number }, progress: (unsubscribed: number) => void): Promise<number> {
  const closed = ids.map((threadId) => client.waitFor('thread/closed', threadId, UNLOAD_DEADLINE_MS));
  const unloadStart = performance.now();
  await windowed(ids.length, Number.POSITIVE_INFINITY, async (i) => {
    await patiently(client, retries, 'thread/unsubscribe', { threadId: ids[i] });
    if (i % 100 === 0) progress(i);
  });
  const lastClosed = Math.max(unloadStart, ...(await Promise.all(closed)).map((a) => a.at));
  return lastClosed - unloadStart;
}

/** Waits `seconds`, sampling RSS every second into `series`; returns the resident memory then. */
async function settle(pid: number, seconds: number, series: { s: number; rssKb: number }[]): Promise<ResidentKb> {
  const settleStart = performance.now();
  for (let i = 1; i * SETTLE_SAMPLE_MS <= seconds * 1000; i += 1) {
    await delay(settleStart + i * SETTLE_SAMPLE_MS - performance.now());
    series.push({ s: i * (SETTLE_SAMPLE_MS / 1000), rssKb: groupRssKb(pid) });
  }
  return groupResidentKb(pid);
}

export const scale: Scenario = {
  name: 'scale',
  summary: 'N loaded threads (default 10,000): RSS per thread, loaded/list full and paged, thread/read, time to unload all',
  cases: () => SINGLE_CASE,
  async run(ctx) {
    const { rec, params } = ctx;
    const n = params.scaleThreads;
    await withServer(ctx, { rootConfig: `${UNLOAD_NOW}\nmax_loaded_threads = ${n}` }, async (client) => {
      const pid = client.pid!;
      await delay(SETTLE_MS);
      const before = groupResidentKb(pid);
      const rssBefore = before.rss;
      const retries = { n: 0 };
      const start = new LatencyHistogram();
      const loadStart = performance.now();
      // The first round's phases share its 1/rounds of the progress bar.
      const rounds = params.scaleRounds;
      const progress = (fraction: number): void => ctx.progress(fraction / rounds);
      const ids = await loadAll(client, n, loadStart + params.scaleBudgetS * 1000, retries, start, (loaded) => progress((0.6 * loaded) / n));
      const loadMs = performance.now() - loadStart;
      rec.figure('threads loaded', ids.length, 'count', 'higher');
      rec.check(ids.length === n, `only ${ids.length} of ${n} threads loaded within ${params.scaleBudgetS} s`);
      rec.figure('load all', loadMs, 'ms');
      rec.latency('thread/start', start);
      await delay(SETTLE_MS);
      const rssLoaded = groupRssKb(pid);
      rec.figure('RSS before', rssBefore, 'kB', 'none');
      rec.figure('RSS loaded', rssLoaded, 'kB');
      rec.figure('RSS per thread', (rssLoaded - rssBefore) / Math.max(1, ids.length), 'kB');

      let fullCount = 0;
      rec.latency('loaded/list full', await timedRepeats(LIST_REPEATS, async () => {
        const { result, at, sentAt } = await patiently(client, retries, 'thread/loaded/list', {});
        fullCount = (result.data as unknown[]).length;
        return { sentAt, at };
      }));
      rec.figure('list full returned', fullCount, 'count', 'none');
      // The same reply's bytes between two bare Node processes, measured the same way.
      rec.latency('bare node: a reply of the same size (floor)', await withBareEcho((echo) =>
        timedRepeats(LIST_REPEATS, async () => {
          const sentAt = performance.now();
          const { result, at } = await echo.requestTimed('thread/loaded/list', { floorIds: fullCount });
          rec.check((result.data as unknown[]).length === fullCount, `the bare echo answered ${(result.data as unknown[]).length} ids, not ${fullCount}`);
          return { sentAt, at };
        }),
      ));
      progress(0.65);

      const pages = new LatencyHistogram();
      const walks = new LatencyHistogram();
      let pagedCount = 0;
      for (let walk = 0; walk < PAGED_WALKS; walk += 1) {
        const walkStart = performance.now();
        let cursor: string | null = null;
        pagedCount = 0;
        do {
          const { result, at, sentAt }: { result: Json; at: number; sentAt: number } = await patiently(client, retries, 'thread/loaded/list', { cursor, limit: PAGE_SIZE });
          pages.recordMs(at - sentAt);
          pagedCount += (result.data as unknown[]).length;
          cursor = (result.nextCursor as string | null) ?? null;
        } while (cursor !== null && performance.now() - walkStart < PHASE_BUDGET_MS);
        walks.recordMs(performance.now() - walkStart);
      }
      rec.latency(`loaded/list page of ${PAGE_SIZE}`, pages);
      rec.figure('list paged walk', walks.summary().p50, 'ms');
      rec.check(pagedCount === ids.length, `paged walk saw ${pagedCount} of ${ids.length} loaded threads`);
      progress(0.7);

      // A prime stride visits threads all over the set rather than the newest few.
      const reads = Math.min(params.scaleReads, ids.length);
      rec.latency('thread/read', await timedRepeats(reads, (i) => patiently(client, retries, 'thread/read', { threadId: ids[(i * 7919) % ids.length] })));
      progress(0.75);

      const unloadMs = await unloadAll(client, ids, retries, (i) => progress(0.75 + (0.25 * i) / ids.length));
      rec.figure('unload all', unloadMs, 'ms');
      await delay(SETTLE_MS);
      rec.figure('RSS after unload', groupRssKb(pid), 'kB');
      // Does the host give the memory back? Sampled through the wait, so a late drop shows.
      const series: { s: number; rssKb: number }[] = [];
      const settled = await settle(pid, params.scaleSettleS, series);
      rec.raw('rssAfterUnload', series);
      rec.figure(`RSS ${params.scaleSettleS} s after unload`, settled.rss, 'kB');
      rec.figure('settled RSS / RSS before', settled.rss / rssBefore, 'ratio');
      rec.figure('settled anonymous RSS / before', settled.anon / before.anon, 'ratio');
      rec.figure('file RSS added by the run', settled.file - before.file, 'kB', 'none');

      let last = settled;
      for (let round = 2; round <= rounds; round += 1) {
        const again = await loadAll(client, n, Number.POSITIVE_INFINITY, retries, new LatencyHistogram(), () => undefined);
        rec.check(again.length === n, `round ${round}: only ${again.length} of ${n} threads loaded`);
        await unloadAll(client, again, retries, () => undefined);
        last = await settle(pid, params.scaleSettleS, []);
        rec.figure(`RSS settled after round ${round}`, last.rss, 'kB');
        ctx.progress(round / rounds);
      }
      if (rounds > 1) rec.figure('settled RSS, last round / first', last.rss / settled.rss, 'ratio');
      rec.figure('overloaded retries', retries.n, 'count');
    });
  },
};
