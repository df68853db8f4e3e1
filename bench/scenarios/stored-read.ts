// `stored-read`: reading the history of a long thread. One thread takes a turn through the
// server and is unloaded; its rollout is then grown, turn by turn (copies of its own turn under
// new turn ids), to --read-mb MB, as a long-lived thread's is. Case `unloaded` reads it as it
// is; case `loaded` resumes it first, with the probe beside the cold resume too (its history
// then comes from the host's memory). Then `thread/read` with its turns, and a page of
// `thread/turns/list`, --read-repeats times each, while `thread/loaded/list` is probed open loop
// (every --interval-ms) throughout: does reading a long history stall the other requests?
//
// Over WebSocket, with two connections: the reads on one, the probe on the other, run by a
// worker thread of the bench (probe-worker.ts). On one connection a probe would wait behind a
// multi-megabyte reply by design (per-connection order), and on one thread the bench's own
// parse of that reply would be timed as the server's; only another connection on another
// thread shows whether the host as a whole stalled. The server's event-loop delay max
// (/metrics, where served) is recorded for the resume and for the reads.
import { randomUUID } from 'node:crypto';
import { appendFileSync, readFileSync, statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { findRolloutPath } from '../../src/main/store/files/rollout-locator.js';
import { LatencyHistogram } from '../lib/histogram.js';
import { setTimeout as delay } from 'node:timers/promises';
import { recordWindow, windowStats } from '../lib/list-probe.js';
import { ProbeInWorker } from '../lib/probe-worker.js';
import { createHome, UNLOAD_NOW } from '../lib/server-home.js';
import { WsBenchClient } from '../lib/ws-bench-client.js';
import type { WsEndpoint } from '../lib/ws-endpoint.js';
import { threadWithOneTurn, withWsEndpoint, wsCommandOrFail, type CaseContext, type Scenario } from './scenario.js';
import { threadIdOf } from '../../src/common/thread-id.js';

const READ_DEADLINE_MS = 120_000;
const PAGE = 25;
/** The server's own event-loop delay max, when it serves /metrics. */
const SERVER_LOOP_MAX = 'nodejs_eventloop_lag_max_seconds';
/** After the resume's reply, before its window closes: work the reply left behind is in it. */
const AFTER_RESUME_MS = 300;

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
  summary: 'thread/read (with turns) and thread/turns/list of a thread whose rollout is --read-mb MB, unloaded or resumed, with loaded/list latency on another connection beside them',
  cases: () => [
    { id: 'unloaded', k: 0 },
    { id: 'loaded', k: 1 },
  ],
  async run(ctx, scenarioCase) {
    const command = wsCommandOrFail(ctx, 'stored-read');
    if (command === null) return;
    const home = createHome(ctx.mock.url, UNLOAD_NOW);
    await withWsEndpoint(ctx, command, home, async (endpoint, clients) => {
      const reader = await WsBenchClient.connect(endpoint.url);
      clients.push(reader);
      await measure(ctx, scenarioCase.k === 1, endpoint, home, reader);
    });
  },
};

async function measure(ctx: CaseContext, resume: boolean, endpoint: WsEndpoint, home: string, reader: WsBenchClient): Promise<void> {
  const { rec, params } = ctx;
  const threadId = await threadWithOneTurn(reader, 'hello');
  const closed = reader.waitFor('thread/closed', threadId, READ_DEADLINE_MS);
  await reader.request('thread/unsubscribe', { threadId });
  await closed;
  const path = await findRolloutPath(home, threadIdOf(threadId));
  if (path === null) throw new Error('the seed thread has no rollout');
  const turns = 1 + growRollout(path, threadId, params.readMb * 1_000_000);
  rec.figure('turns in the rollout', turns, 'count', 'none');
  rec.figure('rollout size', Math.round(statSync(path).size / 1000), 'kB', 'none');
  ctx.progress(0.2);
  const reads = new LatencyHistogram();
  const pages = new LatencyHistogram();
  // The probe sends every --interval-ms from here; the windows start once it runs (its own
  // connection's handshake and initialize are before them, as is the server's work for them).
  const probe = await ProbeInWorker.start(endpoint.url, params.intervalMs);
  try {
    // prom-client resets its event-loop histogram at each scrape: this one starts the window.
    await endpoint.metric(SERVER_LOOP_MAX);
    const resumeStart = performance.now();
    let readsStart = resumeStart;
    if (resume) {
      // The cold resume of the long thread, with the probe beside it too.
      const resumed = await reader.requestTimed('thread/resume', { threadId }, READ_DEADLINE_MS);
      rec.figure('thread/resume (cold)', resumed.at - resumeStart, 'ms');
      // What the reply left behind on the server (the mirror's fill) is in the resume's window.
      await delay(AFTER_RESUME_MS);
      const loopMax = await endpoint.metric(SERVER_LOOP_MAX);
      if (loopMax !== null) rec.figure('server event-loop delay max, resume', loopMax * 1000, 'ms');
      readsStart = performance.now();
    }
    // The reads' window starts with a probe however short it is: reads of a small rollout can
    // end within one probe interval (a flaky test saw no probe in the unloaded case's window).
    probe.probeNow();
    for (let i = 0; i < params.readRepeats; i += 1) {
      const readSent = performance.now();
      const read = await reader.requestTimed<{ thread: { turns: unknown[] } }>('thread/read', { threadId, includeTurns: true }, READ_DEADLINE_MS);
      reads.recordMs(read.at - readSent);
      const shown = read.result.thread.turns.length;
      rec.check(shown === turns, `thread/read ${i}: ${shown} turns, the rollout has ${turns}`);
      const pageSent = performance.now();
      const page = await reader.requestTimed<{ data: unknown[] }>('thread/turns/list', { threadId, limit: PAGE }, READ_DEADLINE_MS);
      pages.recordMs(page.at - pageSent);
      rec.check(page.result.data.length === PAGE, `thread/turns/list ${i}: ${page.result.data.length} turns on a page of ${PAGE}`);
      ctx.progress(0.2 + (0.8 * (i + 1)) / params.readRepeats);
    }
    const readsEnd = performance.now();
    const loopMax = await endpoint.metric(SERVER_LOOP_MAX);
    const samples = await probe.stop();
    if (resume) recordWindow(rec, 'loaded/list during the resume', windowStats(samples, resumeStart, readsStart));
    rec.latency('thread/read with turns', reads);
    rec.latency('thread/turns/list, a page', pages);
    recordWindow(rec, 'loaded/list during the reads', windowStats(samples, readsStart, readsEnd));
    if (loopMax !== null) rec.figure('server event-loop delay max, reads', loopMax * 1000, 'ms');
    rec.figure('bench client stall max', probe.clientStallMaxMs, 'ms', 'none');
  } finally {
    await probe.terminate();
  }
}
