// `huge-line`: does one client's multi-megabyte line stall everyone else? One WebSocket client
// probes `thread/loaded/list` open-loop every --interval-ms while another client, on the same
// server, sends --huge-lines lines of --huge-mb MB each, one after another: turn/starts with
// that much text (a thread per turn, each awaited to its turn/completed; the case, in
// which the turn also streams the text back to its sender), and, as a second case,
// thread/loaded/lists carrying it in ignored params (a tiny reply: the input path alone). Two connections, not one: on one
// connection a later request waits for the huge line before it by design (per-connection
// order), so only another connection shows whether the host as a whole stalled. Reports the
// probe's latency while the huge lines flow and before them (idle), the huge turns' own
// send → reply and send → completed, and the server's event-loop delay max (/metrics).
// The sender runs in a worker thread with its own mock model (bench/lib/huge-turn-sender.ts),
// so none of its work lands on the thread that times the probe.
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { summarize } from '../lib/histogram.js';
import type { HugeKind, SenderCommand, SenderData, SenderEvent } from '../lib/huge-turn-sender.js';
import { ListProbe, windowStats } from '../lib/list-probe.js';
import { createHome, removeHome } from '../lib/server-home.js';
import { WsBenchClient } from '../lib/ws-bench-client.js';
import { WorkerChannel } from '../lib/worker-channel.js';
import { WsEndpoint } from '../lib/ws-endpoint.js';
import { wsCommandOrFail, type CaseContext, type Scenario } from './scenario.js';

/** Probing before the first huge line: the idle baseline. */
const IDLE_MS = 500;
/** Between one huge turn's completion and the next send, so each stall stands alone. */
const PAUSE_MS = 100;
/** The server's own event-loop delay over the measured phase, when it serves /metrics. */
const SERVER_LOOP_MAX = 'nodejs_eventloop_lag_max_seconds';
const SENDER = fileURLToPath(new URL('../lib/huge-turn-sender.js', import.meta.url));
const KINDS: readonly HugeKind[] = ['turn/start', 'loaded/list'];

export const hugeLine: Scenario = {
  name: 'huge-line',
  summary: 'one WebSocket client probes thread/loaded/list while another sends --huge-mb MB turn/starts (or lists): probe latency during them, their own latency',
  // Ids are `5 MB turn/start`, `5 MB loaded/list`: the kind is the id's last word.
  cases: (params) => params.hugeLineMb.flatMap((mb) => KINDS.map((kind) => ({ id: `${mb} MB ${kind}`, k: mb }))),
  async run(ctx, scenarioCase) {
    const command = wsCommandOrFail(ctx, 'huge-line');
    if (command === null) return;
    const kind = scenarioCase.id.split(' ').at(-1) as HugeKind;
    const data: SenderData = { kind, bytes: scenarioCase.k * 1_000_000, count: ctx.params.hugeLines, pauseMs: PAUSE_MS };
    const sender = new WorkerChannel<SenderCommand, SenderEvent>('huge-line sender', new Worker(SENDER, { workerData: data }));
    let home: string | null = null;
    let endpoint: WsEndpoint | null = null;
    let prober: WsBenchClient | null = null;
    try {
      home = createHome((await sender.next('mock')).url);
      endpoint = await WsEndpoint.start(command, home);
      prober = await WsBenchClient.connect(endpoint.url);
      await measure(ctx, endpoint, prober, sender);
      prober.close();
      const { code, signal } = await endpoint.stop();
      ctx.rec.check(code === 0, `server exit ${code ?? signal} after SIGTERM`);
    } finally {
      prober?.close();
      await sender.terminate();
      await endpoint?.stop();
      if (home !== null) removeHome(home);
    }
  },
};

async function measure(ctx: CaseContext, endpoint: WsEndpoint, prober: WsBenchClient, sender: WorkerChannel<SenderCommand, SenderEvent>): Promise<void> {
  const { rec, params } = ctx;
  sender.send({ type: 'connect', url: endpoint.url });
  await sender.next('ready');
  ctx.progress(0.2);
  // prom-client resets its event-loop histogram at each scrape: this one starts the window.
  await endpoint.metric(SERVER_LOOP_MAX);
  const probe = new ListProbe(prober, params.intervalMs);
  const origin = performance.now();
  probe.start();
  await delay(IDLE_MS);
  const from = performance.now();
  sender.send({ type: 'go' });
  const sent = await sender.next('sent');
  const to = performance.now();
  const serverLoopMax = await endpoint.metric(SERVER_LOOP_MAX);
  const samples = await probe.stop();
  ctx.progress(0.9);
  const during = windowStats(samples, from, to);
  const idle = windowStats(samples, origin, from);
  rec.latency('loaded/list during huge lines', during.latency);
  rec.latency('loaded/list idle', idle.latency);
  rec.figure('list longest gap', during.longestGapMs, 'ms');
  rec.figure('list failed', during.failed, 'count');
  rec.latency('huge line reply', summarize(sent.replyMs));
  if (sent.completedMs.length > 0) rec.latency('huge turn completed', summarize(sent.completedMs));
  if (serverLoopMax !== null) rec.figure('server event-loop delay max', serverLoopMax * 1000, 'ms');
  rec.figure('bench client stall max', probe.clientStallMaxMs, 'ms', 'none');
  rec.raw('probe', samples.map((s) => [Math.round((s.sentAt - origin) * 100) / 100, s.at === null ? null : Math.round((s.at - s.sentAt) * 100) / 100]));
  rec.check(during.failed === 0, `${during.failed} thread/loaded/list probes failed: ${during.errors.join('; ')}`);
  rec.check(sent.replyMs.length === params.hugeLines, `${sent.replyMs.length} of ${params.hugeLines} huge lines answered`);
}

