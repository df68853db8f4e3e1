// `handoff`: P server processes on one home race for the same T threads, R rounds each
// (handoff-slot.ts), optionally with a random one SIGKILLed every --kill-every seconds and
// replaced. Its verdict is correctness first (handoff-verdict.ts): every acknowledged turn in
// every implementation's reading of the history exactly once, cut turns interrupted, completed
// or absent, the locks of a killed process free once it is gone, and never two processes holding one thread's writer lock in the kernel's lock table. Then the
// figures: handoffs/s, tries per acquisition, acquisition wait, fairness, starvation,
// thread/loaded/list latency on every process, recovery after each kill, and the floor that
// latency is read against: a bare Node echo probed the same way through the race, on the same
// loaded machine.
//
//   seed (server A): T × (thread/start, one turn, unsubscribe → closed); exit
//   race: P slots (A B A B with --mix) ── lock sampler every 10 ms ── kill loop
//   read: one fresh process per implementation reads every thread (thread/read includeTurns)
//
// A failed case keeps its home (its path is printed and in results.json) for inspection, with
// handoff-ledger.json, so that it (or a copy with planted faults) can be judged again by
// --verify-home. With --thread-store postgres (or both) the race runs on one database too, as
// case `postgres` (handoff-postgres.ts).
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { AppServerClient } from '../lib/app-server-client.js';
import type { CaseRecorder } from '../lib/case-result.js';
import { checkDeadHolder, EXIT_DEADLINE_MS } from '../lib/dead-holder-check.js';
import { recordRaceFigures } from '../lib/handoff-race-figures.js';
import { HandoffSlot, type Acquisition, type RaceShared } from '../lib/handoff-slot.js';
import { historyViolations, lockViolations, type LockSample, type SentTurn, type Violation } from '../lib/handoff-verdict.js';
import { ListProbe, windowStats } from '../lib/list-probe.js';
import { BARE_ECHO_COMMAND } from '../lib/bare-echo.js';
import { readLedger, writeLedger } from '../lib/handoff-ledger.js';
import { seedThreads } from '../lib/handoff-seed.js';
import { readBack } from '../lib/history-read-back.js';
import { killVictims } from '../lib/kill-victims.js';
import { HOST_CLI } from '../lib/repo-paths.js';
import { mulberry32 } from '../lib/seeded-random.js';
import type { ServerCommand } from '../lib/server-command.js';
import { createHome, keepHome, removeHome, UNLOAD_NOW } from '../lib/server-home.js';
import { WriterLockSampler } from '../lib/writer-lock-sampler.js';
import { postgresHandoff } from './handoff-postgres.js';
import { SINGLE_CASE, type CaseContext, type Scenario, type ScenarioCase } from './scenario.js';

const POSTGRES_CASE: ScenarioCase = { id: 'postgres', k: 0, threadStore: 'postgres' };

/** One kill: when, whom, which threads the kernel said it held, and how long until they moved on. */
interface Kill {
  at: number;
  slot: number;
  pid: number;
  process: string;
  heldThreads: string[];
  /**
   * Kill → every thread it held locked by another process, as the lock table shows (10 ms
   * precision); null when it held none, or nobody wanted one of them before the race ended.
   */
  recoveryMs: number | null;
  /** Kill → its replacement answered initialize. */
  replacementMs: number | null;
  /** Kill → the process gone, after which the bench could take each lock it held (dead-holder-check.ts). */
  goneAfterMs: number | null;
  /** Locks it held that someone other than a live racing server still held after it was gone. */
  stillHeld: Array<{ threadId: string; pids: number[] }>;
}

export const handoff: Scenario = {
  name: 'handoff',
  summary: 'P processes (mixed with --mix) race for T threads, R rounds each, with --kill-every kills: verdict on histories and the kernel lock table (on PostgreSQL: the rows), fairness, waits',
  // The files store's case keeps its id ''; --thread-store postgres or both adds `postgres`.
  cases: (params) => [...(params.threadStores.includes('files') ? SINGLE_CASE : []), ...(params.threadStores.includes('postgres') ? [POSTGRES_CASE] : [])],
  mixes: true,
  async run(ctx, scenarioCase) {
    const { params, rec, fleet } = ctx;
    if (scenarioCase.threadStore === 'postgres') return postgresHandoff(ctx);
    if (params.verifyHome !== null) return verifyHome(params.verifyHome, fleet, rec);
    // Only thread-host has the embedded model; a home any other implementation shares uses the mock.
    const embedded = fleet.every((s) => s.argv.includes(HOST_CLI));
    const home = createHome(embedded ? null : ctx.mock.url, UNLOAD_NOW);
    const seed = Date.now() >>> 0;
    rec.raw('seed', seed);
    rec.raw('home', home);
    let pass = false;
    try {
      const sent: SentTurn[] = [];
      const threads = await seedThreads(fleet[0]!, home, params.threads, params.historyMode, sent, rec);
      const outcome = await race(ctx, home, threads, sent, mulberry32(seed));
      // Kept with the home, so a copy with planted faults can be judged again (--verify-home).
      writeLedger(home, { threads, sent });
      const reads = await readBack(fleet, home, threads, rec);
      const violations = [
        ...historyViolations(sent, reads),
        ...lockViolations(outcome.lockSamples, (pid) => outcome.processes.get(pid) ?? `pid ${pid}`),
        ...outcome.kills.flatMap((k) => k.stillHeld.map(({ threadId, pids }): Violation => ({
          kind: 'deadHolder',
          threadId,
          turn: null,
          processes: [k.process],
          message: `thread ${threadId}: writer lock of the killed ${k.process} still held (by pid ${pids.join(', ')}) after it died`,
        }))),
      ];
      rec.figure('violations', violations.length, 'count');
      rec.raw('violations', violations);
      for (const v of violations) rec.fail(v.message);
      rec.figure('turns acknowledged', sent.filter((t) => t.outcome === 'acknowledged').length, 'count', 'none');
      rec.figure('turns cut by kills', sent.filter((t) => t.outcome === 'cut').length, 'count', 'none');
      pass = rec.passing;
    } finally {
      if (pass && !params.keepHome) {
        removeHome(home);
      } else {
        keepHome(home);
        if (!pass) rec.fail(`home kept for inspection: ${home}`);
        process.stderr.write(`\nthread-host bench handoff: ${pass ? 'passed' : 'failed'}; home kept for inspection: ${home}\n`);
      }
    }
  },
};

/** Judges a kept home again (a copy, perhaps with faults planted): its ledger against every implementation's reads. */
async function verifyHome(home: string, fleet: readonly ServerCommand[], rec: CaseRecorder): Promise<void> {
  const { threads, sent } = readLedger(home);
  const violations = historyViolations(sent, await readBack(fleet, home, threads, rec));
  rec.figure('violations', violations.length, 'count');
  rec.raw('violations', violations);
  for (const v of violations) rec.fail(v.message);
}

/** The race itself, with the lock sampler and the kill loop around it; records its figures. */
async function race(ctx: CaseContext, home: string, threads: string[], sent: SentTurn[], random: () => number): Promise<{ lockSamples: LockSample[]; processes: Map<number, string>; kills: Kill[] }> {
  const { params, rec, fleet } = ctx;
  const sampler = new WriterLockSampler(home);
  const processes = new Map<number, string>();
  const acquisitions: Acquisition[] = [];
  const total = params.processes * params.rounds * threads.length;
  const shared: RaceShared = {
    homeOf: () => home,
    threads,
    rounds: params.rounds,
    endAt: Number.POSITIVE_INFINITY, // set when the race starts, once every process is up
    probeIntervalMs: params.intervalMs,
    random,
    sent,
    acquisitions,
    onProcess: (pid, label) => {
      processes.set(pid, label);
      sampler.watch(pid);
    },
    fail: (reason) => rec.fail(reason),
  };
  const slots = Array.from({ length: params.processes }, (_, i) => new HandoffSlot(i, fleet[i % fleet.length]!, shared));
  const kills: Kill[] = [];
  const stopKilling = new AbortController();
  let startedAt = Number.NaN;
  let lockSamples: LockSample[] = [];
  const ticker = setInterval(() => ctx.progress(acquisitions.length / total), 250);
  const echoHome = createHome(null);
  let echo: AppServerClient | null = null;
  let echoProbe: ListProbe | null = null;
  try {
    echo = await AppServerClient.start(BARE_ECHO_COMMAND, echoHome);
    echoProbe = new ListProbe(echo, params.intervalMs);
    await Promise.all(slots.map((s) => s.start()));
    rec.userAgent([...new Set(slots.map((s) => s.userAgent))].join(' + '));
    startedAt = performance.now();
    shared.endAt = startedAt + params.handoffBudgetS * 1000;
    sampler.start();
    echoProbe.start();
    const killing = params.killEveryMs > 0 ? killLoop(slots, sampler, join(home, 'thread-writer-locks'), kills, params, random, stopKilling.signal) : Promise.resolve();
    await Promise.all(slots.map((s) => s.run()));
    stopKilling.abort();
    await killing;
  } finally {
    clearInterval(ticker);
    stopKilling.abort();
    lockSamples = sampler.stop();
    const echoSamples = (await echoProbe?.stop()) ?? [];
    await echo?.close();
    removeHome(echoHome);
    rec.latency('bare node echo during the race (the floor)', windowStats(echoSamples, Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY).latency);
    const exits = await Promise.all(slots.map((s) => s.close()));
    exits.forEach((clean, i) => rec.check(clean, `${slots[i]!.label}: did not exit 0 after stdin EOF`));
  }
  rec.figure('lock table samples', sampler.count, 'count', 'none');
  rec.figure('lock table samples with a writer', lockSamples.length, 'count', 'none');
  // A sampler that never saw a writer would make the two-writers check vacuous.
  rec.check(lockSamples.length > 0 || acquisitions.length === 0, 'the lock table never showed a writer lock held: the sampler sees nothing');
  recordFigures(rec, slots, acquisitions, kills, lockSamples, startedAt);
  return { lockSamples, processes, kills };
}

/** Every `killEveryMs`, SIGKILLs a random slot's live process (at most `maxKills` times). */
async function killLoop(slots: HandoffSlot[], sampler: WriterLockSampler, lockDir: string, kills: Kill[], params: CaseContext['params'], random: () => number, signal: AbortSignal): Promise<void> {
  for await (const victim of killVictims(slots, params.killEveryMs, random, signal)) {
    // What the kernel says it holds, an instant before: those threads must move on at once.
    const held = sampler.sample().holders.filter((h) => h.pid === victim.pid).map((h) => h.threadId);
    const label = victim.label;
    const at = performance.now();
    const pid = victim.kill();
    if (pid === undefined) continue; // restarting, or just finished: try again next time
    const isRacer = (p: number): boolean => p !== pid && slots.some((s) => s.pid === p);
    const check = await checkDeadHolder(pid, at, lockDir, held, isRacer);
    kills.push({ at, slot: victim.index, pid, process: label, heldThreads: held, recoveryMs: null, replacementMs: null, ...check });
    if (kills.length >= params.maxKills) return;
  }
}

function recordFigures(rec: CaseRecorder, slots: HandoffSlot[], acquisitions: Acquisition[], kills: Kill[], lockSamples: readonly LockSample[], startedAt: number): void {
  recordRaceFigures(rec, slots, acquisitions, startedAt, 'turn');

  for (const kill of kills) {
    const moved = kill.heldThreads.map((threadId) => lockSamples.find((s) => s.at > kill.at && s.holders.some((h) => h.threadId === threadId && h.pid !== kill.pid))?.at);
    kill.recoveryMs = moved.length === 0 || moved.some((at) => at === undefined) ? null : Math.max(...(moved as number[])) - kill.at;
    const ready = slots[kill.slot]!.restartedAt.find((at) => at > kill.at);
    kill.replacementMs = ready === undefined ? null : ready - kill.at;
  }
  if (kills.length > 0) {
    rec.figure('kills', kills.length, 'count', 'none');
    rec.figure('killed process gone, max', Math.max(...kills.map((k) => k.goneAfterMs ?? Number.NaN)), 'ms');
    for (const k of kills) if (k.goneAfterMs === null) rec.fail(`${k.process}: still running ${EXIT_DEADLINE_MS} ms after SIGKILL`);
    const recovered = kills.flatMap((k) => (k.recoveryMs === null ? [] : [k.recoveryMs]));
    if (recovered.length > 0) rec.figure('recovery after kill, max', Math.max(...recovered), 'ms');
    rec.figure('replacement ready after kill, max', Math.max(...kills.map((k) => k.replacementMs ?? Number.NaN)), 'ms');
  }
  rec.raw('kills', kills.map((k) => ({ ...k, at: round(k.at - startedAt) })));
  rec.timeline({
    label: 'handoff',
    title: 'handoff: acquisition wait (first try → acquired) over time, per process',
    holds: [],
    samples: [],
    series: slots.map((s) => ({
      name: `p${s.index} ${s.server.name}`,
      points: acquisitions.filter((a) => a.slot === s.index).map((a): [number, number] => [round(a.acquiredAt - startedAt), round(a.acquiredAt - a.firstTryAt)]),
    })),
    marks: kills.map((k) => round(k.at - startedAt)),
  });
}

const round = (x: number): number => Math.round(x * 100) / 100;
