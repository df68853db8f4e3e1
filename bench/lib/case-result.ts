// What one scenario case produces for one server in one run, and the recorder scenarios fill
// it through. Everything the reports show comes from these objects; the JSON file holds them
// whole, raw samples included.
import type { LatencyHistogram, LatencySummary } from './histogram.js';
import { roundMs } from './histogram.js';

export type Unit = 'ms' | 'µs' | 'count' | 'kB' | 'per s' | 'ratio';
/** Which way is good, so tables and goals can say who is ahead; `none` for context figures. */
export type Better = 'lower' | 'higher' | 'none';

/** One scalar figure. */
export interface Figure {
  value: number;
  unit: Unit;
  better: Better;
}

/**
 * Latency against time for one case: x is ms since `origin` (the hold start, or the case's
 * measured start), y the answer latency in ms, null for a request that failed or timed out.
 * `holds` are the windows another process held the coordination lock, on the same axis.
 */
export interface Timeline {
  label: string;
  holds: Array<[number, number]>;
  samples: Array<[number, number | null]>;
  /** The chart's title, when it is not thread/loaded/list latency. */
  title?: string;
  /** One series per process instead of `samples` (handoff: acquisition wait per process). */
  series?: Array<{ name: string; points: Array<[number, number | null]> }>;
  /** Instants marked with a vertical line (handoff: kills), on the same axis. */
  marks?: number[];
}

/** One case × server × run. */
export interface CaseResult {
  scenario: string;
  case: string;
  server: string;
  run: number;
  pass: boolean;
  failures: string[];
  figures: Record<string, Figure>;
  latency: Record<string, LatencySummary>;
  timeline: Timeline | null;
  raw: Record<string, unknown>;
  userAgent: string;
  startedAt: string;
  durationMs: number;
}

/** How many distinct failure texts a case keeps; the rest are counted, not listed. */
const MAX_FAILURES = 20;

export class CaseRecorder {
  readonly #result: CaseResult;
  readonly #startedAt = performance.now();
  #failureCount = 0;

  constructor(scenario: string, caseId: string, server: string, run: number) {
    this.#result = {
      scenario,
      case: caseId,
      server,
      run,
      pass: true,
      failures: [],
      figures: {},
      latency: {},
      timeline: null,
      raw: {},
      userAgent: '',
      startedAt: new Date().toISOString(),
      durationMs: 0,
    };
  }

  figure(name: string, value: number, unit: Unit, better: Better = 'lower'): void {
    this.#result.figures[name] = { value: Number.isFinite(value) ? roundMs(value) : value, unit, better };
  }

  latency(name: string, histogram: LatencyHistogram | LatencySummary): void {
    this.#result.latency[name] = 'summary' in histogram ? histogram.summary() : histogram;
  }

  /** Marks the case failed; the first line of the reason is kept (deduplicated). */
  fail(reason: unknown): void {
    this.#result.pass = false;
    const text = (reason instanceof Error ? reason.message : String(reason)).split('\n')[0]!.slice(0, 300);
    this.#failureCount += 1;
    if (!this.#result.failures.includes(text) && this.#result.failures.length < MAX_FAILURES) this.#result.failures.push(text);
  }

  /** `fail(reason)` unless `ok`. */
  check(ok: boolean, reason: string): void {
    if (!ok) this.fail(reason);
  }

  /** Whether no failure was recorded so far. */
  get passing(): boolean {
    return this.#result.pass;
  }

  raw(name: string, value: unknown): void {
    this.#result.raw[name] = value;
  }

  timeline(timeline: Timeline): void {
    this.#result.timeline = timeline;
  }

  userAgent(userAgent: string): void {
    if (this.#result.userAgent === '') this.#result.userAgent = userAgent;
  }

  finish(): CaseResult {
    this.#result.durationMs = roundMs(performance.now() - this.#startedAt);
    if (this.#failureCount > this.#result.failures.length) this.#result.raw.failureCount = this.#failureCount;
    return this.#result;
  }
}
