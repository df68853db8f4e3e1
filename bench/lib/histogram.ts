// A latency histogram over `perf_hooks.createHistogram()` (style habit 15). Values are
// recorded as integer nanoseconds because the histogram only takes integers >= 1, and the
// codec bench measures events of a few microseconds; summaries are reported in ms. The
// histogram keeps about three significant digits per bucket, so the exact maximum is kept
// beside it and no percentile is reported above it.
import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';

/** The fixed percentile set every bench line carries, in milliseconds. */
export interface LatencySummary {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

const NS_PER_MS = 1e6;
/** Four significant figures: finer than run-to-run noise, short enough to read. */
const SIGNIFICANT_FIGURES = 4;

/** Collects latencies given in ms (fractions allowed) and summarises them. */
export class LatencyHistogram {
  readonly #histogram: RecordableHistogram = createHistogram();
  #maxNs = 0;

  recordMs(ms: number): void {
    const ns = Math.max(1, Math.round(ms * NS_PER_MS));
    this.#histogram.record(ns);
    this.#maxNs = Math.max(this.#maxNs, ns);
  }

  get count(): number {
    return this.#histogram.count;
  }

  summary(): LatencySummary {
    const h = this.#histogram;
    if (h.count === 0) return { count: 0, p50: 0, p90: 0, p99: 0, max: 0 };
    const at = (percentile: number): number => toMs(Math.min(h.percentile(percentile), this.#maxNs));
    return { count: h.count, p50: at(50), p90: at(90), p99: at(99), max: toMs(this.#maxNs) };
  }
}

/** Summarises a list of latencies in ms. */
export function summarize(values: readonly number[]): LatencySummary {
  const histogram = new LatencyHistogram();
  for (const value of values) histogram.recordMs(value);
  return histogram.summary();
}

/** Rounds a ms figure for printing. */
export function roundMs(ms: number): number {
  return Number(ms.toPrecision(SIGNIFICANT_FIGURES));
}

function toMs(ns: number): number {
  return roundMs(ns / NS_PER_MS);
}
