// `thread-list`: `thread/list` on a home of many rollouts. One thread takes a turn through the
// server, then its rollout is copied (a new thread id in each copy, spread over the month's
// day directories) until the home holds --list-rollouts of them; then a first listing, which
// reads every head, and --list-repeats more, which find the heads they already read, while
// `thread/loaded/list` is probed open loop (every --interval-ms) throughout.
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { walkRolloutPaths } from '../../src/main/store/files/rollout-locator.js';
import { LatencyHistogram } from '../lib/histogram.js';
import { ListProbe, recordWindow, windowStats } from '../lib/list-probe.js';
import { UNLOAD_NOW } from '../lib/server-home.js';
import { SINGLE_CASE, threadWithOneTurn, withServer, type Scenario } from './scenario.js';

const LIST_DEADLINE_MS = 120_000;
const PAGE = 25;
// The reference's rollouts carry its built-in instructions in every session_meta (~21 KB of the
// ~22 KB head); the seed thread gets as much, so the heads read are the size real ones are.
const BASE_INSTRUCTIONS = 'You are a coding agent. Follow the "AGENTS.md" rules,\nkeep changes small, and explain them. '.repeat(230);

/** The one rollout file under `home`/sessions (the seeded thread's), found as the host finds rollouts. */
async function onlyRollout(home: string): Promise<string> {
  const found: string[] = [];
  for await (const path of walkRolloutPaths(home)) found.push(path);
  if (found.length !== 1) throw new Error(`expected one rollout after the seed turn, found ${found.length}`);
  return found[0]!;
}

/**
 * Writes `count` copies of the rollout of `threadId`, each under a new id, its own name and its
 * own creation time (the session_meta's timestamps, which thread/list sorts by).
 */
function copyRollout(home: string, source: string, threadId: string, count: number): void {
  const text = readFileSync(source, 'utf8');
  const metaLine = text.slice(0, text.indexOf('\n'));
  const created = (JSON.parse(metaLine) as { payload: { timestamp: string } }).payload.timestamp;
  for (let i = 0; i < count; i += 1) {
    const at = new Date(Date.UTC(2026, 10, 1 + (i % 28), 9, Math.floor(i / 60) % 60, i % 60, i % 1000));
    const id = randomUUID();
    const dir = join(home, 'sessions', '2026', '11', String(at.getUTCDate()).padStart(2, '0'));
    mkdirSync(dir, { recursive: true });
    const stamp = at.toISOString().slice(0, 19).replace(/:/g, '-');
    const meta = metaLine.split(created).join(at.toISOString());
    writeFileSync(join(dir, `rollout-${stamp}-${id}.jsonl`), (meta + text.slice(metaLine.length)).split(threadId).join(id));
  }
}

export const threadList: Scenario = {
  name: 'thread-list',
  summary: 'thread/list (a page of 25) on a home of --list-rollouts rollouts: the first listing, the repeats, and loaded/list latency beside them',
  cases: () => SINGLE_CASE,
  async run(ctx) {
    const { rec, params } = ctx;
    await withServer(ctx, { rootConfig: UNLOAD_NOW }, async (client, home) => {
      const threadId = await threadWithOneTurn(client, 'hello', { baseInstructions: BASE_INSTRUCTIONS });
      copyRollout(home, await onlyRollout(home), threadId, params.listRollouts - 1);
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
