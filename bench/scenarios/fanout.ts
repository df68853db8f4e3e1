// `fanout`: C WebSocket clients (default 200) on one server, T threads, each client subscribed
// (thread/resume) to S of them, optionally beside N idle loaded threads. Then turns stream while
// every client probes `thread/loaded/list` open-loop, in two cases:
//   saturated   rounds of one turn on every thread, all at once, back to back (at least R
//               rounds and at least the phase's seconds): the most the host can deliver, where
//               latency is mostly queueing;
//   paced       turns started open-loop at a fixed rate, round-robin over the threads, for the
//               phase's seconds: latency under a steady stream the host keeps up with.
// Reports:
//   delivery        turn/item event emitted (the server's `emittedAtMs`) → read by a subscriber
//   probe           thread/loaded/list round trip, over every client
//   RSS per connection   (VmRSS with C clients − VmRSS before them) / C
//   server CPU per delivered event   all of the server's threads, and its main thread alone
//   non-subscriber events   turn/item events that reached a client not subscribed: must be 0
// Needs a WebSocket command (`--listen ws://127.0.0.1:{port}`); this host's default is switched.
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { OVERLOADED, RpcReplyError } from '../lib/app-server-client.js';
import { LatencyHistogram } from '../lib/histogram.js';
import { cpuMs, mainThreadCpuMs } from '../lib/proc-cpu.js';
import { rssKb } from '../lib/proc-rss.js';
import { createHome } from '../lib/server-home.js';
import { WsBenchClient } from '../lib/ws-bench-client.js';
import type { WsEndpoint } from '../lib/ws-endpoint.js';
import { textInput, withWsEndpoint, wsCommandOrFail, type CaseContext, type Scenario, type ScenarioCase } from './scenario.js';

/** Clients connect this many at a time (a burst of 200 handshakes measures nothing useful). */
const CONNECT_BATCH = 20;
const TURN_DEADLINE_MS = 60_000;
/** Lets allocator and GC settle before reading RSS. */
const SETTLE_MS = 500;
/** The reference sheds load ("overloaded") when its shared inbound queue fills: retry after this. */
const OVERLOAD_PAUSE_MS = 20;
/** The server's own event-loop delay over the measured phase, when it serves /metrics (thread-host). */
const SERVER_LOOP_MAX = 'nodejs_eventloop_lag_max_seconds';
/** Sampling period of the bench's own event-loop monitor. */
const LOOP_RESOLUTION_MS = 5;
/** Idle threads are started this many at a time. */
const IDLE_STARTS_IN_FLIGHT = 16;

const SATURATED: ScenarioCase = { id: 'saturated', k: 0 };
type Pace = 'saturated' | 'paced';

/** Notifications only a thread's subscribers may get (broadcasts are thread/started, status, closed). */
const isSubscriberOnly = (method: string): boolean => method.startsWith('turn/') || method.startsWith('item/') || method === 'thread/tokenUsage/updated';

export const fanout: Scenario = {
  name: 'fanout',
  summary: 'C WebSocket clients, T threads, S subscriptions each: event delivery latency, probe latency, RSS per connection, leaks to non-subscribers',
  cases: (params) => [SATURATED, ...(params.fanoutTurnRate > 0 ? [{ id: `paced ${params.fanoutTurnRate}/s`, k: params.fanoutTurnRate }] : [])],
  async run(ctx, scenarioCase) {
    const command = wsCommandOrFail(ctx, 'fanout');
    if (command === null) return;
    // Idle threads hold one descriptor each (their writer lock), not the three a thread with a
    // turn in flight reserves, so a host sized from the open-file limit would refuse many of
    // them: the home admits every thread of the case (the reference ignores the key).
    const home = createHome(ctx.mock.url, ctx.params.fanoutIdleThreads > 0 ? `max_loaded_threads = ${ctx.params.fanoutThreads + ctx.params.fanoutIdleThreads}` : '');
    await withWsEndpoint(ctx, command, home, (endpoint, clients) => measure(ctx, endpoint, clients, scenarioCase === SATURATED ? 'saturated' : 'paced'));
  },
};

async function measure(ctx: CaseContext, endpoint: WsEndpoint, clients: WsBenchClient[], pace: Pace): Promise<void> {
  const { rec, params } = ctx;
  const owner = await WsBenchClient.connect(endpoint.url);
  clients.push(owner);
  /** Turns started per thread in the measured phase (a client's expected turn/completed count). */
  const turnsOn = new Map<string, number>();
  const turnOn = async (threadId: string, label: string): Promise<void> => {
    const done = owner.waitFor('turn/completed', threadId, TURN_DEADLINE_MS);
    await patiently(() => owner.request('turn/start', { threadId, input: textInput(label) }, TURN_DEADLINE_MS));
    await done;
  };
  // Threads need one turn on disk before another client can resume (subscribe to) them.
  const threadIds: string[] = [];
  for (let t = 0; t < params.fanoutThreads; t += 1) threadIds.push(String((await owner.request('thread/start', {})).thread.id));
  await Promise.all(threadIds.map((threadId) => turnOn(threadId, 'seed')));
  if (params.fanoutIdleThreads > 0) await startIdleThreads(ctx, owner);
  ctx.progress(0.1);

  await delay(SETTLE_MS);
  const rssBeforeKb = rssKb(endpoint.pid);
  const subscribers: WsBenchClient[] = [];
  while (subscribers.length < params.fanoutClients) {
    const batch = Math.min(CONNECT_BATCH, params.fanoutClients - subscribers.length);
    subscribers.push(...(await Promise.all(Array.from({ length: batch }, () => WsBenchClient.connect(endpoint.url)))));
  }
  clients.push(...subscribers);
  await delay(SETTLE_MS);
  rec.figure('RSS per connection', (rssKb(endpoint.pid) - rssBeforeKb) / params.fanoutClients, 'kB');
  ctx.progress(0.3);

  const delivery = new LatencyHistogram();
  let nonSubscriber = 0;
  const completedSeen: number[] = [];
  const subscriptions = subscribers.map((client, i) => {
    const mine = new Set(Array.from({ length: Math.min(params.fanoutSubscriptions, threadIds.length) }, (_, j) => threadIds[(i * params.fanoutSubscriptions + j) % threadIds.length]!));
    completedSeen.push(0);
    client.onNotification = (method, p, arrivedAtMs, emittedAtMs) => {
      if (!isSubscriberOnly(method)) return;
      if (!mine.has(String(p.threadId))) nonSubscriber += 1;
      else if (Number.isFinite(emittedAtMs)) delivery.recordMs(Math.max(0, arrivedAtMs - emittedAtMs));
      if (method === 'turn/completed') completedSeen[i]! += 1;
    };
    return mine;
  });
  await Promise.all(subscribers.map((client, i) => Promise.all([...subscriptions[i]!].map((threadId) => patiently(() => client.request('thread/resume', { threadId, excludeTurns: true }))))));
  ctx.progress(0.4);

  // The bench process (200 clients and the mock model) shares the machine with the server: its
  // own event-loop delay is reported beside the latencies, so a bench stall is not read as a
  // server one.
  const benchLoop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  benchLoop.enable();
  // prom-client resets its event-loop histogram at each scrape: this one starts the window.
  await endpoint.metric(SERVER_LOOP_MAX);
  const probe = new LatencyHistogram();
  let probeErrors = 0;
  const probeParams = { limit: params.fanoutProbeLimit };
  const probeOnce = (client: WsBenchClient) => {
    const sentAt = performance.now();
    client.request('thread/loaded/list', probeParams).then(
      () => probe.recordMs(performance.now() - sentAt),
      () => (probeErrors += 1),
    );
  };
  // Open loop, each client at its own phase of the period, the first probe at once.
  const probing = subscribers.map((client, i) => {
    const offset = (i * params.fanoutProbeMs) / subscribers.length;
    let timer: NodeJS.Timeout | undefined;
    const first = setTimeout(() => {
      probeOnce(client);
      timer = setInterval(() => probeOnce(client), params.fanoutProbeMs);
    }, offset);
    return () => {
      clearTimeout(first);
      clearInterval(timer);
    };
  });
  const cpuBeforeMs = cpuMs(endpoint.pid);
  const mainCpuBeforeMs = mainThreadCpuMs(endpoint.pid);
  const phaseStart = performance.now();
  const phaseEnd = phaseStart + params.fanoutSeconds * 1000;
  const started = (threadId: string) => turnsOn.set(threadId, (turnsOn.get(threadId) ?? 0) + 1);
  let busySkips = 0;
  try {
    if (pace === 'saturated') {
      // At least R rounds and at least the phase's duration, so that a fast server's probes are
      // not all taken inside turn bursts while a slow one's are spread over a long phase.
      let rounds = 0;
      while (rounds < params.fanoutRounds || performance.now() < phaseEnd) {
        threadIds.forEach(started);
        await Promise.all(threadIds.map((threadId) => turnOn(threadId, `round ${rounds}`)));
        rounds += 1;
        ctx.progress(0.4 + 0.6 * Math.min(1, rounds / params.fanoutRounds));
      }
      rec.figure('rounds', rounds, 'count', 'none');
    } else {
      // A turn every 1/rate s on the next thread without one running; a thread still busy is
      // skipped (counted), so the offered load never queues turns on one thread.
      const running = new Set<string>();
      const turns: Array<Promise<void>> = [];
      const periodMs = 1000 / params.fanoutTurnRate;
      let next = 0;
      for (let tick = 0; phaseStart + tick * periodMs < phaseEnd; tick += 1) {
        const wait = phaseStart + tick * periodMs - performance.now();
        if (wait > 0) await delay(wait);
        const threadId = nextIdle(threadIds, running, next);
        if (threadId === null) {
          busySkips += 1;
          continue;
        }
        next = (threadIds.indexOf(threadId) + 1) % threadIds.length;
        running.add(threadId);
        started(threadId);
        turns.push(turnOn(threadId, `turn ${tick}`).finally(() => running.delete(threadId)));
        ctx.progress(0.4 + 0.6 * Math.min(1, (performance.now() - phaseStart) / (phaseEnd - phaseStart)));
      }
      await Promise.all(turns);
      rec.figure('turns', turns.length, 'count', 'none');
      rec.figure('turns skipped (thread busy)', busySkips, 'count');
    }
  } finally {
    for (const stop of probing) stop();
    benchLoop.disable();
  }
  // The last subscriber events may still be on the way after the owner saw its completions.
  const expected = subscriptions.map((mine) => [...mine].reduce((sum, threadId) => sum + (turnsOn.get(threadId) ?? 0), 0));
  const deadline = Date.now() + TURN_DEADLINE_MS;
  while (completedSeen.some((n, i) => n < expected[i]!) && Date.now() < deadline) await delay(20);
  const serverCpuMs = cpuMs(endpoint.pid) - cpuBeforeMs;
  const serverMainCpuMs = mainThreadCpuMs(endpoint.pid) - mainCpuBeforeMs;
  rec.latency('delivery', delivery);
  rec.latency('probe', probe);
  // Everything the server did in the phase (turns, writes, probes) per event delivered.
  rec.figure('server CPU per delivered event', (serverCpuMs * 1000) / Math.max(1, delivery.count), 'µs');
  // The main thread's part alone: every request and notification goes through it, so this is
  // the share that shows in delivery and probe latency (for thread-host; a single-threaded
  // server's whole CPU).
  rec.figure('server main-thread CPU per delivered event', (serverMainCpuMs * 1000) / Math.max(1, delivery.count), 'µs');
  rec.figure('events to non-subscribers', nonSubscriber, 'count');
  rec.figure('probe errors', probeErrors, 'count');
  rec.figure('bench event-loop delay max', benchLoop.max / 1e6, 'ms');
  const serverLoopMax = await endpoint.metric(SERVER_LOOP_MAX);
  if (serverLoopMax !== null) rec.figure('server event-loop delay max', serverLoopMax * 1000, 'ms');
  rec.check(nonSubscriber === 0, `${nonSubscriber} turn/item events reached clients not subscribed to the thread`);
  rec.check(probeErrors === 0, `${probeErrors} thread/loaded/list probes failed`);
  const short = completedSeen.filter((n, i) => n !== expected[i]).length;
  rec.check(short === 0, `${short} clients did not get exactly the turn/completed of their threads' turns`);
}

/** The first thread from `from` on (wrapping) with no turn running, or null when all are busy. */
function nextIdle(threadIds: readonly string[], running: ReadonlySet<string>, from: number): string | null {
  for (let i = 0; i < threadIds.length; i += 1) {
    const threadId = threadIds[(from + i) % threadIds.length]!;
    if (!running.has(threadId)) return threadId;
  }
  return null;
}

/** Starts `--idle-threads` threads that stay loaded and idle; reports how long loading them took. */
async function startIdleThreads(ctx: CaseContext, owner: WsBenchClient): Promise<void> {
  const total = ctx.params.fanoutIdleThreads;
  const startedAt = performance.now();
  let issued = 0;
  const worker = async () => {
    while (issued < total) {
      issued += 1;
      await patiently(() => owner.request('thread/start', {}));
    }
  };
  await Promise.all(Array.from({ length: Math.min(IDLE_STARTS_IN_FLIGHT, total) }, worker));
  ctx.rec.figure('idle threads loaded', total, 'count', 'none');
  ctx.rec.figure('time to load idle threads', performance.now() - startedAt, 'ms');
}

/**
 * A request retried while the server answers "overloaded" (the reference's bounded inbound
 * queue). "host is full" shares the code but is not retried: nothing would free room.
 */
async function patiently<T>(send: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await send();
    } catch (error) {
      if (!(error instanceof RpcReplyError) || error.code !== OVERLOADED || error.message.includes('host is full')) throw error;
      await delay(OVERLOAD_PAUSE_MS);
    }
  }
}
