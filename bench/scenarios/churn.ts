// `churn`: C concurrent clients on one connection, each cycling
//   thread/start → turn → unsubscribe → thread/closed → thread/resume → unsubscribe → thread/closed
// for a fixed duration, so threads keep loading and unloading (delay 0) while turns run. The
// closing unsubscribe keeps the loaded set at about C instead of growing with every cycle.
// Reports throughput, latency per step, errors by step, and an open-loop loaded/list probe
// running throughout (the timeline chart). Churn keeps both cores busy by design, so beside
// that probe a bare Node line echo (bare-echo.ts) is probed the same way for the same time:
// the round trip the machine itself gives under this load, the floor the server's probe is
// read against.
import { performance } from 'node:perf_hooks';
import type { AppServerClient } from '../lib/app-server-client.js';
import { withBareEcho } from '../lib/bare-echo.js';
import { cpuMs } from '../lib/proc-cpu.js';
import { LatencyHistogram } from '../lib/histogram.js';
import { ListProbe, timelineSamples, windowStats } from '../lib/list-probe.js';
import { UNLOAD_NOW } from '../lib/server-home.js';
import { type CaseContext, firstLine, SINGLE_CASE, textInput, withServer, type Scenario } from './scenario.js';

const STEP_DEADLINE_MS = 30_000;
const STEPS = ['thread/start', 'turn', 'thread/unsubscribe', 'unsubscribe→closed', 'thread/resume'] as const;
type Step = (typeof STEPS)[number];

class ChurnStats {
  readonly latency = new Map<Step, LatencyHistogram>(STEPS.map((s) => [s, new LatencyHistogram()]));
  readonly errors = new Map<Step, number>();
  readonly errorTexts = new Set<string>();
  cycles = 0;
  requests = 0;

  /** Runs one step, timing it from `sentAt` (default: now) to the arrival `step` resolves with. */
  async time(name: Step, step: () => Promise<number>, sentAt = performance.now()): Promise<void> {
    try {
      const at = await step();
      this.latency.get(name)!.recordMs(at - sentAt);
    } catch (error) {
      this.errors.set(name, (this.errors.get(name) ?? 0) + 1);
      if (this.errorTexts.size < 10) this.errorTexts.add(`${name}: ${firstLine(error)}`);
      throw error;
    }
  }
}

async function cycle(client: AppServerClient, stats: ChurnStats, n: number): Promise<void> {
  let threadId = '';
  const request = async (method: string, params: unknown): Promise<number> => {
    stats.requests += 1;
    return (await client.requestTimed(method, params, STEP_DEADLINE_MS)).at;
  };
  const close = async (): Promise<void> => {
    const closed = client.waitFor('thread/closed', threadId, STEP_DEADLINE_MS);
    const sentAt = performance.now();
    await stats.time('thread/unsubscribe', () => request('thread/unsubscribe', { threadId }), sentAt);
    await stats.time('unsubscribe→closed', async () => (await closed).at, sentAt);
  };
  await stats.time('thread/start', async () => {
    stats.requests += 1;
    const { result, at } = await client.requestTimed('thread/start', {}, STEP_DEADLINE_MS);
    threadId = result.thread.id as string;
    return at;
  });
  await stats.time('turn', async () => {
    const completed = client.waitFor('turn/completed', threadId, STEP_DEADLINE_MS);
    await request('turn/start', { threadId, input: textInput(`churn ${n}`) });
    return (await completed).at;
  });
  await close();
  await stats.time('thread/resume', () => request('thread/resume', { threadId }));
  await close();
  stats.cycles += 1;
}

export const churn: Scenario = {
  name: 'churn',
  summary: 'C clients cycling start → turn → unsubscribe → closed → resume for a fixed time: throughput, latency per step, errors',
  cases: () => SINGLE_CASE,
  async run(ctx) {
    await withBareEcho((echo) => withServer(ctx, { rootConfig: UNLOAD_NOW }, (client) => churnAgainst(ctx, client, echo)));
  },
};

async function churnAgainst(ctx: CaseContext, client: AppServerClient, echo: AppServerClient): Promise<void> {
  const { rec, params } = ctx;
  const stats = new ChurnStats();
  const probe = new ListProbe(client, params.intervalMs);
  const echoProbe = new ListProbe(echo, params.intervalMs);
  const cpuBeforeMs = cpuMs(client.pid ?? -1);
  const startedAt = performance.now();
  const endAt = startedAt + params.churnSeconds * 1000;
  const ticker = setInterval(() => ctx.progress((performance.now() - startedAt) / (endAt - startedAt)), 250);
  probe.start();
  echoProbe.start();
  let n = 0;
  const worker = async (): Promise<void> => {
    while (performance.now() < endAt) await cycle(client, stats, n++).catch(() => undefined);
  };
  try {
    await Promise.all(Array.from({ length: params.churnClients }, worker));
  } finally {
    clearInterval(ticker);
  }
  const elapsedS = (performance.now() - startedAt) / 1000;
  const serverCpuMs = cpuMs(client.pid ?? -1) - cpuBeforeMs;
  const samples = await probe.stop();
  const echoSamples = await echoProbe.stop();
  for (const step of STEPS) rec.latency(step, stats.latency.get(step)!);
  const list = windowStats(samples, startedAt, startedAt + elapsedS * 1000);
  rec.latency('loaded/list during churn', list.latency);
  rec.latency('bare node echo during churn (the floor)', windowStats(echoSamples, startedAt, startedAt + elapsedS * 1000).latency);
  rec.figure('list failed', list.failed, 'count');
  rec.figure('bench client stall max', probe.clientStallMaxMs, 'ms', 'none');
  rec.check(list.failed === 0, `${list.failed} thread/loaded/list requests failed: ${list.errors.join('; ') || 'no answer'}`);
  rec.figure('cycles per s', stats.cycles / elapsedS, 'per s', 'higher');
  rec.figure('requests per s', stats.requests / elapsedS, 'per s', 'higher');
  // CPU the server process spent per cycle (user + system, all its threads): hardly moved by
  // other load on the machine, unlike the latencies.
  rec.figure('server CPU per cycle', serverCpuMs / Math.max(1, stats.cycles), 'ms');
  const errors = [...stats.errors.values()].reduce((a, b) => a + b, 0);
  rec.figure('errors', errors, 'count');
  rec.raw('errorsByStep', Object.fromEntries(stats.errors));
  rec.raw('cycles', stats.cycles);
  for (const text of stats.errorTexts) rec.fail(text);
  rec.check(stats.cycles > 0, 'no cycle completed');
  rec.timeline({ label: 'churn', holds: [], samples: timelineSamples(samples, startedAt) });
}
