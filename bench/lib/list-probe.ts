// Open-loop `thread/loaded/list`: one request every interval whether or not the last was
// answered, so a server that stalls shows the stall as latency instead of the client slowing
// down with it (a closed loop would send one request per stall and hide it).
import { monitorEventLoopDelay, performance, type IntervalHistogram } from 'node:perf_hooks';
import type { AppServerClient } from './app-server-client.js';
import type { CaseRecorder } from './case-result.js';
import { LatencyHistogram, type LatencySummary } from './histogram.js';

/** One probe request: when it was sent and when answered (null: error or no answer in time). */
export interface ProbeSample {
  sentAt: number;
  at: number | null;
  /** The first line of the error, when it failed. */
  error?: string;
}

/** The reference waits up to 30 s for coordination; anything slower than this is stuck. */
const PROBE_DEADLINE_MS = 60_000;

/** Sampling period of the bench's own event-loop monitor. */
const LOOP_RESOLUTION_MS = 5;

export class ListProbe {
  readonly #samples: ProbeSample[] = [];
  readonly #answers: Array<Promise<void>> = [];
  // A stall of the bench process itself (the machine is shared) would look like a server
  // stall; its own event-loop delay is recorded beside the probe so a reader can tell.
  readonly #loop: IntervalHistogram = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  #timer: NodeJS.Timeout | undefined;

  constructor(
    /** Over stdio (AppServerClient) or WebSocket (WsBenchClient): anything with requestTimed. */
    private readonly client: Pick<AppServerClient, 'requestTimed'>,
    private readonly intervalMs: number,
    /** The request's params (fanout pages its probe; the lock scenarios list everything). */
    private readonly params: { limit?: number } = {},
  ) {}

  start(): void {
    this.#loop.enable();
    this.#timer = setInterval(() => this.probeNow(), this.intervalMs);
    this.probeNow();
  }

  /** Sends one probe now, besides the interval's (a window that must hold at least one). */
  probeNow(): void {
    const sample: ProbeSample = { sentAt: performance.now(), at: null };
    this.#samples.push(sample);
    this.#answers.push(
      this.client.requestTimed('thread/loaded/list', this.params, PROBE_DEADLINE_MS).then(
        ({ at }) => void (sample.at = at),
        (error: unknown) => void (sample.error = String(error instanceof Error ? error.message : error).split('\n')[0]!.slice(0, 200)),
      ),
    );
  }

  /** Stops sending and resolves once every request sent has been answered or failed. */
  async stop(): Promise<ProbeSample[]> {
    clearInterval(this.#timer);
    this.#loop.disable();
    await Promise.all(this.#answers);
    return this.#samples;
  }

  /** The longest the bench's own event loop was late while probing, in ms (0 before start). */
  get clientStallMaxMs(): number {
    return this.#loop.count === 0 ? 0 : Math.max(0, this.#loop.max / 1e6 - LOOP_RESOLUTION_MS);
  }
}

/** The figures for the requests sent in [from, to). */
export interface WindowStats {
  latency: LatencySummary;
  sent: number;
  failed: number;
  /** Distinct error texts of the failed requests. */
  errors: string[];
  /** Answered before `to`: a server that stalls answers its hold-time requests only after. */
  answeredInWindow: number;
  longestGapMs: number;
}

export function windowStats(samples: readonly ProbeSample[], from: number, to: number): WindowStats {
  const inWindow = samples.filter((s) => s.sentAt >= from && s.sentAt < to);
  const histogram = new LatencyHistogram();
  const answers: number[] = [];
  for (const s of inWindow) {
    if (s.at === null) continue;
    histogram.recordMs(s.at - s.sentAt);
    answers.push(s.at);
  }
  return {
    latency: histogram.summary(),
    sent: inWindow.length,
    failed: inWindow.length - answers.length,
    errors: [...new Set(inWindow.flatMap((s) => (s.error === undefined ? [] : [s.error])))],
    answeredInWindow: answers.filter((at) => at < to).length,
    longestGapMs: longestGap(from, to, answers),
  };
}

/**
 * A window's figures under `label`: the probe's latency, the longest stretch without an answer
 * (a stalled server shows there even when its late answers are few), and failed probes, which
 * fail the case (a probe that never came back has no latency to show).
 */
export function recordWindow(rec: CaseRecorder, label: string, window: WindowStats): void {
  rec.latency(label, window.latency);
  rec.figure(`${label}, longest gap`, window.longestGapMs, 'ms');
  rec.check(window.failed === 0, `${window.failed} probes ${label} failed: ${window.errors.join('; ')}`);
}

/**
 * The longest stretch without an answer, from `from` through the last answer to a request
 * sent in the window; if that last answer came before `to`, the silence until `to` counts too.
 */
export function longestGap(from: number, to: number, answers: readonly number[]): number {
  const times = [from, ...answers].sort((a, b) => a - b);
  if (times[times.length - 1]! < to) times.push(to);
  let gap = 0;
  for (let i = 1; i < times.length; i += 1) gap = Math.max(gap, times[i]! - times[i - 1]!);
  return gap;
}

/** Samples as [sent at − origin, latency or null], rounded to 0.01 ms for the JSON file. */
export function timelineSamples(samples: readonly ProbeSample[], origin: number): Array<[number, number | null]> {
  const r = (x: number) => Math.round(x * 100) / 100;
  return samples.map((s) => [r(s.sentAt - origin), s.at === null ? null : r(s.at - s.sentAt)]);
}
