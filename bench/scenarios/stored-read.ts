// `stored-read`: reading the history of a long thread. One thread takes a turn through the
// server and is unloaded; its rollout is then grown, turn by turn (copies of its own turn under
// new turn ids), to --read-mb MB, as a long-lived thread's is. Case `unloaded` reads it as it
// is; case `loaded` resumes it first, with the probe beside the cold resume too (its history
// then comes from the host's memory). Then
// `thread/read` with its turns, and a page of `thread/turns/list`, --read-repeats times each,
// while `thread/loaded/list` is probed open loop (every --interval-ms) throughout: does reading
// a long history stall the other requests?
import { randomUUID } from 'node:crypto';
import { appendFileSync, readFileSync, statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { findRolloutPath } from '../../src/main/history/rollout-locator.js';
import { LatencyHistogram } from '../lib/histogram.js';
import { ListProbe, windowStats } from '../lib/list-probe.js';
import { UNLOAD_NOW } from '../lib/server-home.js';
import { threadWithOneTurn, withServer, type Scenario } from './scenario.js';

const READ_DEADLINE_MS = 120_000;
const PAGE = 25;

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const ORDINAL = /"ordinal":\d+/;

/**
 * Appends copies of the rollout's last turn until it holds `bytes`; returns the turns added.
 * Each copy is a turn of its own, as any writer would have written it: every id in it but the
 * thread's is new, and a paginated rollout's ordinals go on counting.
 */
function growRollout(path: string, threadId: string, bytes: number): number {
  const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
  const start = lines.findLastIndex((line) => line.includes('"type":"task_started"'));
  const turn = lines.slice(start);
  const ids = [...new Set(turn.join('\n').match(UUID) ?? [])].filter((id) => id !== threadId);
  const last = ORDINAL.exec(lines.at(-1)!);
  let ordinal = last === null ? null : Number(last[0].slice('"ordinal":'.length));
  const copy = (): string => {
    const fresh = new Map(ids.map((id) => [id, randomUUID()]));
    return turn
      .map((line) => {
        const renamed = line.replace(UUID, (id) => fresh.get(id) ?? id);
        return ordinal === null ? renamed : renamed.replace(ORDINAL, `"ordinal":${(ordinal += 1)}`);
      })
      .join('\n');
  };
  let added = 0;
  // Appended in batches: one write per ~1 MB.
  const perBatch = Math.max(1, Math.floor(1_000_000 / (turn.join('\n').length + 1)));
  while (statSync(path).size < bytes) {
    let batch = '';
    for (let i = 0; i < perBatch; i += 1) batch += `${copy()}\n`;
    appendFileSync(path, batch);
    added += perBatch;
  }
  return added;
}

export const storedRead: Scenario = {
  name: 'stored-read',
  summary: 'thread/read (with turns) and thread/turns/list of a thread whose rollout is --read-mb MB, unloaded or resumed, with loaded/list latency beside them',
  cases: () => [
    { id: 'unloaded', k: 0 },
    { id: 'loaded', k: 1 },
  ],
  async run(ctx, scenarioCase) {
    const { rec, params } = ctx;
    await withServer(ctx, { rootConfig: UNLOAD_NOW }, async (client, home) => {
      const threadId = await threadWithOneTurn(client, 'hello');
      const closed = client.waitFor('thread/closed', threadId);
      await client.request('thread/unsubscribe', { threadId });
      await closed;
      const path = await findRolloutPath(home, threadId);
      if (path === null) throw new Error('the seed thread has no rollout');
      const turns = 1 + growRollout(path, threadId, params.readMb * 1_000_000);
      rec.figure('turns in the rollout', turns, 'count', 'none');
      rec.figure('rollout size', Math.round(statSync(path).size / 1000), 'kB', 'none');
      ctx.progress(0.2);
      const probe = new ListProbe(client, params.intervalMs);
      const reads = new LatencyHistogram();
      const pages = new LatencyHistogram();
      // Taken first, so the probe's first request (sent as it starts) is in the window.
      let probeStart = performance.now();
      probe.start();
      const resumeStart = probeStart;
      if (scenarioCase.k === 1) {
        // The cold resume of the long thread, with the probe beside it too.
        const resumed = await client.requestTimed('thread/resume', { threadId }, READ_DEADLINE_MS);
        rec.figure('thread/resume (cold)', resumed.at - resumeStart, 'ms');
        probeStart = performance.now();
        probe.probeNow(); // the reads' window starts with a probe however short it is
      }
      for (let i = 0; i < params.readRepeats; i += 1) {
        const readSent = performance.now();
        const read = await client.requestTimed('thread/read', { threadId, includeTurns: true }, READ_DEADLINE_MS);
        reads.recordMs(read.at - readSent);
        const shown = (read.result.thread as { turns: unknown[] }).turns.length;
        rec.check(shown === turns, `thread/read ${i}: ${shown} turns, the rollout has ${turns}`);
        const pageSent = performance.now();
        const page = await client.requestTimed('thread/turns/list', { threadId, limit: PAGE }, READ_DEADLINE_MS);
        pages.recordMs(page.at - pageSent);
        rec.check((page.result.data as unknown[]).length === PAGE, `thread/turns/list ${i}: ${(page.result.data as unknown[]).length} turns on a page of ${PAGE}`);
        ctx.progress(0.2 + (0.8 * (i + 1)) / params.readRepeats);
      }
      const samples = await probe.stop();
      if (scenarioCase.k === 1) rec.latency('loaded/list during the resume', windowStats(samples, resumeStart, probeStart).latency);
      rec.latency('thread/read with turns', reads);
      rec.latency('thread/turns/list, a page', pages);
      rec.latency('loaded/list during the reads', windowStats(samples, probeStart, Number.POSITIVE_INFINITY).latency);
    });
  },
};
