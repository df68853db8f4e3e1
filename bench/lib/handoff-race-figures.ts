// The figures every handoff race records, on either store: throughput, tries and wait per
// acquisition, fairness and starvation, and thread/loaded/list latency on every process. The
// files store's race shares turns out over its processes, the PostgreSQL race acquisitions
// over its hosts (the terms for each); both over the contended window.
import type { CaseRecorder } from './case-result.js';
import { jainIndex, longestStarvation, sharesInWindow } from './handoff-figures.js';
import type { Acquisition, HandoffSlot } from './handoff-slot.js';
import { LatencyHistogram } from './histogram.js';
import { windowStats } from './list-probe.js';

/** What fairness is counted in: each slot's completed turns, or its acquisitions. */
export type ShareOf = 'turn' | 'acquisition';

export function recordRaceFigures(rec: CaseRecorder, slots: readonly HandoffSlot[], acquisitions: readonly Acquisition[], startedAt: number, shareOf: ShareOf): void {
  const finishedAt = Math.max(...slots.map((s) => s.finishedAt));
  const wait = new LatencyHistogram();
  for (const a of acquisitions) wait.recordMs(a.acquiredAt - a.firstTryAt);
  const handoffs = slots.reduce((sum, s) => sum + s.completions.length, 0);
  rec.figure('handoffs per s', handoffs / ((finishedAt - startedAt) / 1000), 'per s', 'higher');
  rec.figure('resume tries per acquisition', acquisitions.reduce((sum, a) => sum + a.attempts, 0) / Math.max(1, acquisitions.length), 'count');
  rec.latency('acquisition wait', wait);

  // Fairness over the contended window: until the first process finished its rounds (every
  // process runs as many, so over the whole race every share would be equal).
  const contendedUntil = Math.min(...slots.map((s) => s.finishedAt));
  const events = slots.map((s) => (shareOf === 'turn' ? s.completions : acquisitions.filter((a) => a.slot === s.index).map((a) => a.acquiredAt)));
  const shares = sharesInWindow(events, startedAt, contendedUntil);
  rec.figure("Jain's fairness index", jainIndex(shares), 'ratio', 'higher');
  rec.figure(`${shareOf} share min`, Math.min(...shares), 'ratio', 'higher');
  rec.figure(`${shareOf} share max`, Math.max(...shares), 'ratio', 'none');
  rec.figure('longest starvation', Math.max(...slots.map((s) => longestStarvation(s.completions, startedAt, s.finishedAt))), 'ms');
  rec.raw(`${shareOf}Shares`, Object.fromEntries(slots.map((s, i) => [`p${s.index} ${s.server.name}`, shares[i]])));

  let worstListP99 = 0;
  for (const slot of slots) {
    const list = windowStats(slot.probeSamples, Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY);
    rec.latency(`loaded/list p${slot.index} ${slot.server.name}`, list.latency);
    worstListP99 = Math.max(worstListP99, list.latency.p99);
    rec.check(list.failed === 0, `${slot.label}: ${list.failed} thread/loaded/list requests failed: ${list.errors.join('; ') || 'no answer'}`);
  }
  rec.figure('loaded/list p99, worst process', worstListP99, 'ms');
  rec.figure('bench client stall max', Math.max(...slots.map((s) => s.clientStallMaxMs)), 'ms', 'none');
}
