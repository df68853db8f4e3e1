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
//   probe           thread/loaded/list round trip, over every client (timed on the bench's main
//                   thread, behind the 200 clients' messages: its event-loop delay is reported)
//   probe from a thread of its own   the same request every 10 ms from a bench worker thread on
//                   a connection of its own: the server's answer; and the floor, a bare Node
//                   WebSocket echo (bare-ws-echo.ts) probed the same way at the same time
//   RSS per connection   (VmRSS with C clients − VmRSS before them) / C
//   server CPU per delivered event   all of the server's threads, and its main thread alone
//   non-subscriber events   turn/item events that reached a client not subscribed: must be 0
// Needs a WebSocket command (`--listen ws://127.0.0.1:{port}`); this host's default is switched.
// With --thread-store postgres (or both), the same two cases also run on 3 hosts on one database
// (`3 hosts saturated`, `3 hosts paced …`; bench-fleet.ts): threads are started round-robin
// over the hosts, client i connects to host i mod 3, so most subscriptions reach their thread's
// owner through forwarding; delivery and probe are then reported per host too, and the server
// figures are the hosts' sums (CPU, RSS) or worst (event-loop delay).
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { OVERLOADED, RpcReplyError } from '../lib/app-server-client.js';
import { LatencyHistogram } from '../lib/histogram.js';
import { cpuMs, mainThreadCpuMs } from '../lib/proc-cpu.js';
import { rssKb } from '../lib/proc-rss.js';
import { createHome } from '../lib/server-home.js';
import { WsBenchClient } from '../lib/ws-bench-client.js';
import type { WsEndpoint } from '../lib/ws-endpoint.js';
import { withBareWsEcho } from '../lib/bare-ws-echo.js';
import { withBenchFleet } from '../lib/bench-fleet.js';
import { windowStats, type ProbeSample } from '../lib/list-probe.js';
import { ProbeInWorker } from '../lib/probe-worker.js';
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
/** Period of the probe on a thread of its own (one per host), open loop. */
const OWN_THREAD_PROBE_MS = 10;
/** Idle threads are started this many at a time. */
const IDLE_STARTS_IN_FLIGHT = 16;

/** Hosts of the fleet cases. */
const FLEET_HOSTS = 3;
type Pace = 'saturated' | 'paced';

/** Notifications only a thread's subscribers may get (broadcasts are thread/started, status, closed). */
const isSubscriberOnly = (method: string): boolean => method.startsWith('turn/') || method.startsWith('item/') || method === 'thread/tokenUsage/updated';

export const fanout: Scenario = {
  name: 'fanout',
  summary: 'C WebSocket clients, T threads, S subscriptions each: event delivery latency, probe latency, RSS per connection, leaks to non-subscribers',
  cases: (params) => {
    const paced = params.fanoutTurnRate > 0 ? [`paced ${params.fanoutTurnRate}/s`] : [];
    const single = params.threadStores.includes('files') ? ['saturated', ...paced].map((id): ScenarioCase => ({ id, k: 0 })) : [];
    const fleet = params.threadStores.includes('postgres') ? ['saturated', ...paced].map((id): ScenarioCase => ({ id: `${FLEET_HOSTS} hosts ${id}`, k: 0, threadStore: 'postgres' })) : [];
    return [...single, ...fleet];
  },
  async run(ctx, scenarioCase) {
    const pace: Pace = scenarioCase.id.endsWith('saturated') ? 'saturated' : 'paced';
    // Idle threads hold one descriptor each (their writer lock), not the three a thread with a
    // turn in flight reserves, so a host sized from the open-file limit would refuse many of
    // them: the home admits every thread of the case (the reference ignores the key).
    const config = ctx.params.fanoutIdleThreads > 0 ? `max_loaded_threads = ${ctx.params.fanoutThreads + ctx.params.fanoutIdleThreads}` : '';
    if (scenarioCase.threadStore === 'postgres') {
      await withBareWsEcho((echo) => withBenchFleet(ctx, 'fanout', FLEET_HOSTS, ({ hosts }, clients) => measure(ctx, hosts, echo, clients, pace), config));
      return;
    }
    const command = wsCommandOrFail(ctx, 'fanout');
    if (command === null) return;
    await withBareWsEcho((echo) => withWsEndpoint(ctx, command, createHome(ctx.mock.url, config), (endpoint, clients) => measure(ctx, [endpoint], echo, clients, pace)));
  },
};

/** Sums a per-process reading over the hosts. */
const summed = (hosts: readonly WsEndpoint[], read: (pid: number) => number): number => hosts.reduce((sum, host) => sum + read(host.pid), 0);

async function measure(ctx: CaseContext, hosts: readonly WsEndpoint[], echo: WsEndpoint, clients: WsBenchClient[], pace: Pace): Promise<void> {
  const { rec, params } = ctx;
  // One owner client per host; thread t is started by host t mod H's, which then owns it.
  const owners = await Promise.all(hosts.map((host) => WsBenchClient.connect(host.url)));
  clients.push(...owners);
  const ownerOf = new Map<string, WsBenchClient>();
  /** Turns started per thread in the measured phase (a client's expected turn/completed count). */
  const turnsOn = new Map<string, number>();
  const turnOn = async (threadId: string, label: string): Promise<void> => {
    const owner = ownerOf.get(threadId)!;
    const done = owner.waitFor('turn/completed', threadId, TURN_DEADLINE_MS);
    await patiently(() => owner.request('turn/start', { threadId, input: textInput(label) }, TURN_DEADLINE_MS));
    await done;
  };
  // Threads need one turn stored before another client (or host) can resume (subscribe to) them.
  const threadIds: string[] = [];
  for (let t = 0; t < params.fanoutThreads; t += 1) {
    const owner = owners[t % owners.length]!;
    const threadId = String((await owner.request('thread/start', {})).thread.id);
    ownerOf.set(threadId, owner);
    threadIds.push(threadId);
  }
  await Promise.all(threadIds.map((threadId) => turnOn(threadId, 'seed')));
  if (params.fanoutIdleThreads > 0) await startIdleThreads(ctx, owners[0]!);
  ctx.progress(0.1);

  await delay(SETTLE_MS);
  const rssBeforeKb = summed(hosts, rssKb);
  const subscribers: WsBenchClient[] = [];
  while (subscribers.length < params.fanoutClients) {
    const batch = Math.min(CONNECT_BATCH, params.fanoutClients - subscribers.length);
    const first = subscribers.length;
    subscribers.push(...(await Promise.all(Array.from({ length: batch }, (_, j) => WsBenchClient.connect(hosts[(first + j) % hosts.length]!.url)))));
  }
  clients.push(...subscribers);
  await delay(SETTLE_MS);
  rec.figure('RSS per connection', (summed(hosts, rssKb) - rssBeforeKb) / params.fanoutClients, 'kB');
  ctx.progress(0.3);

  const hostOf = (client: number): number => client % hosts.length;
  const delivery = new LatencyHistogram();
  const deliveryByHost = hosts.map(() => new LatencyHistogram());
  let nonSubscriber = 0;
  const completedSeen: number[] = [];
  const subscriptions = subscribers.map((client, i) => {
    const mine = new Set(Array.from({ length: Math.min(params.fanoutSubscriptions, threadIds.length) }, (_, j) => threadIds[(i * params.fanoutSubscriptions + j) % threadIds.length]!));
    completedSeen.push(0);
    client.onNotification = (method, p, arrivedAtMs, emittedAtMs) => {
      if (!isSubscriberOnly(method)) return;
      if (!mine.has(String(p.threadId))) nonSubscriber += 1;
      else if (Number.isFinite(emittedAtMs)) {
        delivery.recordMs(Math.max(0, arrivedAtMs - emittedAtMs));
        deliveryByHost[hostOf(i)]!.recordMs(Math.max(0, arrivedAtMs - emittedAtMs));
      }
      if (method === 'turn/completed') completedSeen[i]! += 1;
    };
    return mine;
  });
  await Promise.all(subscribers.map((client, i) => Promise.all([...subscriptions[i]!].map((threadId) => patiently(() => client.request('thread/resume', { threadId, excludeTurns: true }))))));
  if (hosts.length > 1) {
    const forwarded = subscriptions.reduce((sum, mine, i) => sum + [...mine].filter((threadId) => ownerOf.get(threadId) !== owners[hostOf(i)]).length, 0);
    rec.figure('subscriptions through a peer link', forwarded, 'count', 'none');
  }
  ctx.progress(0.4);

  // The bench process (200 clients and the mock model) shares the machine with the server: its
  // own event-loop delay is reported beside the latencies, so a bench stall is not read as a
  // server one.
  const benchLoop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  benchLoop.enable();
  // prom-client resets its event-loop histogram at each scrape: this one starts the window.
  await Promise.all(hosts.map((host) => host.metric(SERVER_LOOP_MAX)));
  // The same request from a thread of the bench's own, on a connection of its own: its latency is
  // the server's answer without the wait behind the 200 clients' messages on the bench's main
  // thread. A bare Node WebSocket echo is probed the same way at the same time: the floor, what
  // the loaded machine alone adds to a round trip.
  const starts = await Promise.allSettled([...hosts, echo].map((server) => ProbeInWorker.start(server.url, OWN_THREAD_PROBE_MS, params.fanoutProbeLimit)));
  const ownThreadProbes = starts.flatMap((start) => (start.status === 'fulfilled' ? [start.value] : []));
  const failedStart = starts.find((start): start is PromiseRejectedResult => start.status === 'rejected');
  if (failedStart !== undefined) {
    // The probes that did start are not left running past the case.
    await Promise.all(ownThreadProbes.map((probe) => probe.terminate()));
    throw failedStart.reason;
  }
  const probe = new LatencyHistogram();
  const probeByHost = hosts.map(() => new LatencyHistogram());
  let probeErrors = 0;
  const probeParams = { limit: params.fanoutProbeLimit };
  const probeOnce = (client: WsBenchClient, i: number) => {
    const sentAt = performance.now();
    client.request('thread/loaded/list', probeParams).then(
      () => {
        probe.recordMs(performance.now() - sentAt);
        probeByHost[hostOf(i)]!.recordMs(performance.now() - sentAt);
      },
      () => (probeErrors += 1),
    );
  };
  // Open loop, each client at its own phase of the period, the first probe at once.
  const probing = subscribers.map((client, i) => {
    const offset = (i * params.fanoutProbeMs) / subscribers.length;
    let timer: NodeJS.Timeout | undefined;
    const first = setTimeout(() => {
      probeOnce(client, i);
      timer = setInterval(() => probeOnce(client, i), params.fanoutProbeMs);
    }, offset);
    return () => {
      clearTimeout(first);
      clearInterval(timer);
    };
  });
  const cpuBeforeMs = summed(hosts, cpuMs);
  const mainCpuBeforeMs = summed(hosts, mainThreadCpuMs);
  const benchCpuBeforeMs = mainThreadCpuMs(process.pid);
  const phaseStart = performance.now();
  const phaseEnd = phaseStart + params.fanoutSeconds * 1000;
  const started = (threadId: string) => turnsOn.set(threadId, (turnsOn.get(threadId) ?? 0) + 1);
  let busySkips = 0;
  let ownThreadSamples: ProbeSample[][] = [];
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
    ownThreadSamples = await Promise.all(ownThreadProbes.map((p) => p.stop()));
  }
  const ownThread = windowStats(ownThreadSamples.slice(0, hosts.length).flat(), phaseStart, Number.POSITIVE_INFINITY);
  const floor = windowStats(ownThreadSamples[hosts.length]!, phaseStart, Number.POSITIVE_INFINITY);
  const benchBusy = (mainThreadCpuMs(process.pid) - benchCpuBeforeMs) / (performance.now() - phaseStart);
  // The last subscriber events may still be on the way after the owner saw its completions.
  const expected = subscriptions.map((mine) => [...mine].reduce((sum, threadId) => sum + (turnsOn.get(threadId) ?? 0), 0));
  const deadline = Date.now() + TURN_DEADLINE_MS;
  while (completedSeen.some((n, i) => n < expected[i]!) && Date.now() < deadline) await delay(20);
  const serverCpuMs = summed(hosts, cpuMs) - cpuBeforeMs;
  const serverMainCpuMs = summed(hosts, mainThreadCpuMs) - mainCpuBeforeMs;
  rec.latency('delivery', delivery);
  rec.latency('probe', probe);
  rec.latency('probe from a thread of its own', ownThread.latency);
  rec.latency('bare node ws echo from a thread of its own (the floor)', floor.latency);
  if (hosts.length > 1) {
    deliveryByHost.forEach((histogram, h) => rec.latency(`delivery, clients of host ${h}`, histogram));
    probeByHost.forEach((histogram, h) => rec.latency(`probe, host ${h}`, histogram));
  }
  // Everything the server did in the phase (turns, writes, probes) per event delivered.
  rec.figure('server CPU per delivered event', (serverCpuMs * 1000) / Math.max(1, delivery.count), 'µs');
  // The main thread's part alone: every request and notification goes through it, so this is
  // the share that shows in delivery and probe latency (for thread-host; a single-threaded
  // server's whole CPU).
  rec.figure('server main-thread CPU per delivered event', (serverMainCpuMs * 1000) / Math.max(1, delivery.count), 'µs');
  rec.figure('events to non-subscribers', nonSubscriber, 'count');
  rec.figure('probe errors', probeErrors, 'count');
  // The bench's own main thread reads every client's messages and serves the mock model: when
  // it is busy, a probe's reply waits there too, so these say how much of the probe's latency
  // the bench itself may hold.
  rec.figure('bench event-loop delay p99', benchLoop.percentile(99) / 1e6, 'ms');
  rec.figure('bench event-loop delay max', benchLoop.max / 1e6, 'ms');
  rec.figure('bench main-thread busy share', benchBusy, 'ratio', 'none');
  const serverLoopMax = await Promise.all(hosts.map((host) => host.metric(SERVER_LOOP_MAX)));
  if (serverLoopMax.every((max) => max !== null)) rec.figure('server event-loop delay max', Math.max(...(serverLoopMax as number[])) * 1000, 'ms');
  rec.check(nonSubscriber === 0, `${nonSubscriber} turn/item events reached clients not subscribed to the thread`);
  rec.check(probeErrors === 0, `${probeErrors} thread/loaded/list probes failed`);
  rec.check(ownThread.failed === 0, `${ownThread.failed} probes from a thread of their own failed: ${ownThread.errors.join('; ')}`);
  rec.check(floor.failed === 0, `${floor.failed} probes of the bare echo failed: ${floor.errors.join('; ')}`);
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
