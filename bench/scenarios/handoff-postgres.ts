// `handoff`, case `postgres`: the race of handoff.ts on the PostgreSQL thread store. P hosts,
// each in a home of its own, all on one database with fleet_lease_ms = --lease-ms and no fleet
// secret (so a thread another host holds is refused, not forwarded: the hosts contend), race for
// T threads, R rounds each (handoff-slot.ts: resume, a turn, unsubscribe so it unloads and
// releases, next), with a random host SIGKILLed every --kill-every seconds and restarted.
//
// The verdict is read from the database rows alone (stored-history-rows.ts, as the fleet's
// fault suite reads them): every acknowledged turn exactly once with its status, cut turns at
// most once, nothing never sent; ordinals contiguous; epochs never decreasing along them, so
// nothing a host wrote after its lockLost follows the line that fenced it. Fairness is Jain's
// index over the hosts' acquisitions in the contended window. A killed host's thread stays its
// own until its lease lapses, so the next acquisition of the thread it held comes no sooner than
// lease − renewal after the kill; later, when nobody asks for it at once or a later kill holds
// it up.
import { performance } from 'node:perf_hooks';
import type { PostgresConnection } from '../../src/common/postgres/postgres-connection.js';
import { withBareEcho } from '../lib/bare-echo.js';
import { benchDatabase, postgresStoreConfig } from '../lib/bench-postgres.js';
import type { CaseRecorder } from '../lib/case-result.js';
import { recordRaceFigures } from '../lib/handoff-race-figures.js';
import { seedThreads } from '../lib/handoff-seed.js';
import { HandoffSlot, type Acquisition, type RaceShared } from '../lib/handoff-slot.js';
import { historyViolations, type HistoryRead, type SentTurn, type Violation } from '../lib/handoff-verdict.js';
import { ListProbe, windowStats } from '../lib/list-probe.js';
import { killVictims } from '../lib/kill-victims.js';
import { HOST_CLI } from '../lib/repo-paths.js';
import { mulberry32 } from '../lib/seeded-random.js';
import { createHome, removeHome, UNLOAD_NOW } from '../lib/server-home.js';
import { epochRegressions, misplacedOrdinals, storedLines, storedTurns } from '../lib/stored-history-rows.js';
import type { CaseContext } from './scenario.js';

/** One kill: when, which slot, and the thread its host held then (null: none). */
interface Kill {
  at: number;
  slot: number;
  process: string;
  held: string | null;
}

/** Runs the race on a fresh database and judges its rows; fills the case's recorder. */
export async function postgresHandoff(ctx: CaseContext): Promise<void> {
  const { params, rec, fleet } = ctx;
  const database = await benchDatabase(params.postgresUrl);
  const renewMs = Math.max(100, Math.floor(params.leaseMs / 4));
  const config = [postgresStoreConfig(database, params.leaseMs, renewMs), UNLOAD_NOW].join('\n');
  // Only thread-host has the embedded model; another implementation's hosts use the mock.
  const embedded = fleet.every((s) => s.argv.includes(HOST_CLI));
  const homes = Array.from({ length: params.processes }, () => createHome(embedded ? null : ctx.mock.url, config));
  const seed = Date.now() >>> 0;
  rec.raw('seed', seed);
  try {
    const sent: SentTurn[] = [];
    const threads = await seedThreads(fleet[0]!, homes[0]!, params.threads, params.historyMode, sent, rec);
    await race(ctx, homes, threads, sent, mulberry32(seed));
    const violations = await rowViolations(database, threads, sent);
    rec.figure('violations', violations.length, 'count');
    rec.raw('violations', violations);
    for (const v of violations) rec.fail(v.message);
    rec.figure('turns acknowledged', sent.filter((t) => t.outcome === 'acknowledged').length, 'count', 'none');
    rec.figure('turns cut by kills', sent.filter((t) => t.outcome === 'cut').length, 'count', 'none');
  } finally {
    for (const home of homes) removeHome(home);
  }
}

/** Every thread's rows against the turns sent on it, and against the store's invariants. */
async function rowViolations(database: PostgresConnection, threads: readonly string[], sent: readonly SentTurn[]): Promise<Violation[]> {
  const violations: Violation[] = [];
  const reads: HistoryRead[] = [];
  for (const threadId of threads) {
    const lines = await storedLines(database, threadId);
    for (const line of misplacedOrdinals(lines)) {
      violations.push({ kind: 'misplacedOrdinal', threadId, turn: null, processes: [], message: `thread ${threadId}: ordinal ${line.ordinal} stored where ${lines.indexOf(line)} belongs` });
    }
    for (const line of epochRegressions(lines)) {
      violations.push({ kind: 'epochRegression', threadId, turn: null, processes: [], message: `thread ${threadId}: ordinal ${line.ordinal} written under epoch ${line.epoch}, after a line of a later epoch` });
    }
    reads.push({ reader: 'the database rows', threadId, turns: storedTurns(lines), error: null });
  }
  return [...violations, ...historyViolations(sent, reads)];
}

/** The race with its kill loop and the echo probed beside it; records the race's figures. */
async function race(ctx: CaseContext, homes: readonly string[], threads: string[], sent: SentTurn[], random: () => number): Promise<void> {
  const { params, rec, fleet } = ctx;
  const acquisitions: Acquisition[] = [];
  const total = params.processes * params.rounds * threads.length;
  const shared: RaceShared = {
    homeOf: (index) => homes[index]!,
    threads,
    rounds: params.rounds,
    endAt: Number.POSITIVE_INFINITY, // set when the race starts, once every host is up
    probeIntervalMs: params.intervalMs,
    random,
    sent,
    acquisitions,
    onProcess: () => undefined,
    fail: (reason) => rec.fail(reason),
  };
  const slots = Array.from({ length: params.processes }, (_, i) => new HandoffSlot(i, fleet[i % fleet.length]!, shared));
  const kills: Kill[] = [];
  const stopKilling = new AbortController();
  const ticker = setInterval(() => ctx.progress(acquisitions.length / total), 250);
  let startedAt = Number.NaN;
  try {
    await withBareEcho(async (echo) => {
      const echoProbe = new ListProbe(echo, params.intervalMs);
      try {
        await Promise.all(slots.map((s) => s.start()));
        rec.userAgent([...new Set(slots.map((s) => s.userAgent))].join(' + '));
        startedAt = performance.now();
        shared.endAt = startedAt + params.handoffBudgetS * 1000;
        echoProbe.start();
        const killing = params.killEveryMs > 0 ? killLoop(slots, kills, params, random, stopKilling.signal) : Promise.resolve();
        await Promise.all(slots.map((s) => s.run()));
        stopKilling.abort();
        await killing;
      } finally {
        stopKilling.abort();
        rec.latency('bare node echo during the race (the floor)', windowStats(await echoProbe.stop(), Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY).latency);
      }
    });
  } finally {
    clearInterval(ticker);
    const exits = await Promise.all(slots.map((s) => s.close()));
    exits.forEach((clean, i) => rec.check(clean, `${slots[i]!.label}: did not exit 0 after stdin EOF`));
  }
  recordFigures(rec, slots, acquisitions, kills, startedAt);
}

/** Every `killEveryMs`, SIGKILLs a random slot's live host (at most `maxKills` times); its slot restarts it. */
async function killLoop(slots: HandoffSlot[], kills: Kill[], params: CaseContext['params'], random: () => number, signal: AbortSignal): Promise<void> {
  for await (const victim of killVictims(slots, params.killEveryMs, random, signal)) {
    const held = victim.holding;
    const process = victim.label;
    const at = performance.now();
    if (victim.kill() === undefined) continue; // restarting, or just finished: try again next time
    kills.push({ at, slot: victim.index, process, held });
    if (kills.length >= params.maxKills) return;
  }
}

function recordFigures(rec: CaseRecorder, slots: HandoffSlot[], acquisitions: Acquisition[], kills: Kill[], startedAt: number): void {
  recordRaceFigures(rec, slots, acquisitions, startedAt, 'acquisition');
  if (kills.length === 0) return;
  rec.figure('kills', kills.length, 'count', 'none');
  const acquiredAgain = kills.flatMap((k) => {
    const next = k.held === null ? undefined : acquisitions.find((a) => a.threadId === k.held && a.acquiredAt > k.at);
    return next === undefined ? [] : [next.acquiredAt - k.at];
  });
  if (acquiredAgain.length > 0) {
    rec.figure("killed host's thread acquired again, min", Math.min(...acquiredAgain), 'ms', 'none');
    rec.figure("killed host's thread acquired again, max", Math.max(...acquiredAgain), 'ms', 'none');
  }
  const replaced = kills.map((k) => (slots[k.slot]!.restartedAt.find((at) => at > k.at) ?? Number.NaN) - k.at);
  rec.figure('replacement ready after kill, max', Math.max(...replaced), 'ms');
  rec.raw('kills', kills.map((k) => ({ ...k, at: Math.round(k.at - startedAt) })));
}
