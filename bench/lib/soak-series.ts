// The figures of a soak run: one sample per interval (RSS, open fds, event-loop delay, cycles
// done), and whether they stayed flat after warm-up. Pure functions, so the verdict can be
// unit-tested without a 10-minute run; the scenario (scenarios/soak.ts) collects the samples.

/** One sample. `null` where the server does not say (event-loop delay of a server without stats lines). */
export interface SoakSample {
  /** Seconds since the churn began. */
  t: number;
  rssMB: number | null;
  fds: number | null;
  /** Event-loop delay over the interval that ended at `t`, from the server's own monitor. */
  eventLoopP99Ms: number | null;
  eventLoopMaxMs: number | null;
  /** Churn cycles completed since the start, all clients together. */
  cycles: number;
  loadedThreads: number | null;
  liveWorkers: number | null;
  /** `log`: the server's `stats` line; `proc`: read by the bench from /proc/<pid>. */
  source: 'log' | 'proc';
}

/** Middle third against last third of one figure. */
export interface Flatness {
  middleMean: number;
  lastMean: number;
  /** lastMean / middleMean: 1 is flat, above 1 grew. */
  ratio: number;
  flat: boolean;
}

export interface SoakVerdict {
  /** Samples left out as warm-up (the first third, plus the remainder when n is not 3k). */
  warmupSamples: number;
  /** Samples in each compared third. */
  thirdSamples: number;
  rss: Flatness | null;
  fds: Flatness | null;
  eventLoopP99: Flatness | null;
  /** Largest event-loop delay seen in any interval after warm-up. */
  eventLoopMaxAfterWarmupMs: number | null;
  /** Every figure the server gave is flat; false also when there were too few samples. */
  flat: boolean;
}

/**
 * How much growth still counts as flat: last-third mean ≤ middle-third mean × (1 + ratio) +
 * slack. The slack keeps small, quantised figures from failing on noise: the fd count moves by
 * a few with how many threads happen to be loaded at the sampling instant, and the server's
 * event-loop monitor has a 10 ms resolution. A leak that grows with cycles (hundreds per
 * second) passes any of these within a minute.
 */
export const TOLERANCE = {
  rss: { ratio: 0.1, slack: 0 },
  fds: { ratio: 0.1, slack: 2 },
  eventLoopP99: { ratio: 0.5, slack: 5 },
} as const;

/** The warm-up is the first third: JIT, pool start, heap growth to its working size. */
export function soakVerdict(samples: readonly SoakSample[]): SoakVerdict {
  const third = Math.floor(samples.length / 3);
  const middle = samples.slice(samples.length - 2 * third, samples.length - third);
  const last = samples.slice(samples.length - third);
  const compare = (pick: (s: SoakSample) => number | null, tol: { ratio: number; slack: number }): Flatness | null => {
    const m = mean(middle.map(pick));
    const l = mean(last.map(pick));
    if (m === null || l === null) return null;
    return { middleMean: m, lastMean: l, ratio: m === 0 ? (l === 0 ? 1 : Infinity) : l / m, flat: l <= m * (1 + tol.ratio) + tol.slack };
  };
  const afterWarmup = [...middle, ...last].map((s) => s.eventLoopMaxMs).filter((v): v is number => v !== null);
  const rss = third > 0 ? compare((s) => s.rssMB, TOLERANCE.rss) : null;
  const fds = third > 0 ? compare((s) => s.fds, TOLERANCE.fds) : null;
  const eventLoopP99 = third > 0 ? compare((s) => s.eventLoopP99Ms, TOLERANCE.eventLoopP99) : null;
  const measured = [rss, fds, eventLoopP99].filter((f): f is Flatness => f !== null);
  return {
    warmupSamples: samples.length - 2 * third,
    thirdSamples: third,
    rss,
    fds,
    eventLoopP99,
    eventLoopMaxAfterWarmupMs: afterWarmup.length > 0 ? Math.max(...afterWarmup) : null,
    flat: third > 0 && measured.length > 0 && measured.every((f) => f.flat),
  };
}

/** A `stats` line of the host's log (src/main/stats-reporter.ts) as a sample; null for any other line. */
export function sampleFromStatsLine(line: string, t: number, cycles: number): SoakSample | null {
  let entry: Record<string, any>;
  try {
    entry = JSON.parse(line) as Record<string, any>;
  } catch {
    return null;
  }
  if (entry?.msg !== 'stats') return null;
  const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  const rss = num(entry.rssBytes);
  return {
    t,
    rssMB: rss === null ? null : rss / 2 ** 20,
    fds: num(entry.openFds),
    eventLoopP99Ms: num(entry.eventLoopDelayMs?.p99),
    eventLoopMaxMs: num(entry.eventLoopDelayMs?.max),
    cycles,
    loadedThreads: num(entry.loadedThreads),
    liveWorkers: num(entry.liveWorkers),
    source: 'log',
  };
}

/** The series and the verdict as markdown, for a reader of the run and for docs/BENCHMARKS.md. */
export function soakMarkdown(samples: readonly SoakSample[], verdict: SoakVerdict): string {
  const cell = (v: number | null, digits = 1): string => (v === null ? 'n/a' : v.toFixed(digits));
  const lines = [
    '| t (s) | RSS (MB) | fds | event-loop delay p99 / max (ms) | cycles | loaded | workers |',
    '|---:|---:|---:|---:|---:|---:|---:|',
    ...samples.map(
      (s) =>
        `| ${s.t.toFixed(0)} | ${cell(s.rssMB)} | ${cell(s.fds, 0)} | ${cell(s.eventLoopP99Ms)} / ${cell(s.eventLoopMaxMs)} | ${s.cycles} | ${cell(s.loadedThreads, 0)} | ${cell(s.liveWorkers, 0)} |`,
    ),
    '',
    `Warm-up: first ${verdict.warmupSamples} samples; compared: middle ${verdict.thirdSamples} against last ${verdict.thirdSamples}.`,
    '',
    '| figure | middle-third mean | last-third mean | last / middle | flat if | verdict |',
    '|---|---:|---:|---:|---|---|',
    flatRow('RSS (MB)', verdict.rss, TOLERANCE.rss, ''),
    flatRow('open fds', verdict.fds, TOLERANCE.fds, ''),
    flatRow('event-loop delay p99 (ms)', verdict.eventLoopP99, TOLERANCE.eventLoopP99, ' ms'),
    '',
    `Event-loop delay max after warm-up: ${cell(verdict.eventLoopMaxAfterWarmupMs)} ms. Verdict: **${verdict.flat ? 'flat' : verdict.thirdSamples === 0 ? 'too few samples' : 'NOT flat'}**.`,
  ];
  return lines.join('\n') + '\n';
}

function flatRow(name: string, f: Flatness | null, tol: { ratio: number; slack: number }, unit: string): string {
  const rule = `≤ ×${1 + tol.ratio}${tol.slack ? ` + ${tol.slack}${unit}` : ''}`;
  if (f === null) return `| ${name} | n/a | n/a | n/a | ${rule} | n/a |`;
  return `| ${name} | ${f.middleMean.toFixed(2)} | ${f.lastMean.toFixed(2)} | ${f.ratio.toFixed(3)} | ${rule} | ${f.flat ? 'flat' : 'GREW'} |`;
}

function mean(values: ReadonlyArray<number | null>): number | null {
  const known = values.filter((v): v is number => v !== null);
  return known.length === 0 ? null : known.reduce((a, b) => a + b, 0) / known.length;
}
