// The codec bench's closing output: medians over runs, each codec against structured clone.
//   events:    one `codec-ratio` JSON line (throughput and latency ratios by kind) and a table
//   snapshots: one `codec-snapshot` JSON line per size and codec (p50/p99, main-thread decode,
//              ratio to structured clone) and a table; docs/BENCHMARKS.md ("Codecs")
//              reports these ratios
import type { EventKind } from './actor-event-samples.js';
import type { SnapshotCodecName } from './codec-protocol.js';
import { EVENT_KINDS } from './actor-event-samples.js';
import { SNAPSHOT_CODECS } from './codec-protocol.js';
import { CODEC_NAMES, type CodecName } from './event-codecs.js';
import { roundMs, type LatencySummary } from './histogram.js';
import { fmt, fmtRatio, median, ratioOf } from './summary-table.js';

const BASELINE = 'structured-clone';

/** A finished burst/paced pair for one event codec and kind. */
export interface EventResult {
  codec: CodecName;
  kind: EventKind;
  eventsPerSec: number;
  burst: LatencySummary;
  paced: LatencySummary;
}

/** One snapshot codec at one history size in one run. */
export interface SnapshotResult {
  codec: SnapshotCodecName;
  turns: number;
  run: number;
  reps: number;
  bytes: number;
  latency: LatencySummary;
  mainDecode: LatencySummary;
}

const round = (x: number | null): number | null => (x === null || !Number.isFinite(x) ? x : roundMs(x));

export function printEventRatios(results: readonly EventResult[]): void {
  const med = (codec: CodecName, kind: EventKind, pick: (r: EventResult) => number): number =>
    median(results.filter((r) => r.codec === codec && r.kind === kind).map(pick));
  const byKind: Record<string, Record<string, { throughput: number | null; burstP50: number | null; pacedP50: number | null }>> = {};
  const rows = ['', '| kind | codec | events/s | burst p50 ms | burst p99 ms | paced p50 ms | paced p99 ms | throughput ×SC | paced p50 ×SC |', '|---|---|---:|---:|---:|---:|---:|---:|---:|'];
  for (const kind of EVENT_KINDS) {
    const base = { eps: med(BASELINE, kind, (r) => r.eventsPerSec), paced: med(BASELINE, kind, (r) => r.paced.p50), burst: med(BASELINE, kind, (r) => r.burst.p50) };
    byKind[kind] = {};
    for (const codec of CODEC_NAMES) {
      const eps = med(codec, kind, (r) => r.eventsPerSec);
      const pacedP50 = med(codec, kind, (r) => r.paced.p50);
      const burstP50 = med(codec, kind, (r) => r.burst.p50);
      if (codec !== BASELINE) {
        byKind[kind]![codec] = { throughput: round(ratioOf(eps, base.eps)), burstP50: round(ratioOf(burstP50, base.burst)), pacedP50: round(ratioOf(pacedP50, base.paced)) };
      }
      const burstP99 = med(codec, kind, (r) => r.burst.p99);
      const pacedP99 = med(codec, kind, (r) => r.paced.p99);
      rows.push(`| ${kind} | ${codec} | ${eps} | ${fmt(burstP50)} | ${fmt(burstP99)} | ${fmt(pacedP50)} | ${fmt(pacedP99)} | ${fmtRatio(ratioOf(eps, base.eps))} | ${fmtRatio(ratioOf(pacedP50, base.paced))} |`);
    }
  }
  process.stdout.write(JSON.stringify({ scenario: 'codec-ratio', baseline: BASELINE, note: 'codec / baseline; throughput >1 is faster, latency >1 is slower', byKind }) + '\n');
  process.stdout.write(rows.join('\n') + '\n');
}

export function printSnapshotRatios(results: readonly SnapshotResult[]): void {
  const sizes = [...new Set(results.map((r) => r.turns))];
  const med = (codec: SnapshotCodecName, turns: number, pick: (r: SnapshotResult) => number): number =>
    median(results.filter((r) => r.codec === codec && r.turns === turns).map(pick));
  const rows = ['', '| turns | codec | bytes | p50 ms | p99 ms | main-thread decode p50 ms | p50 ×SC | p99 ×SC | decode ×SC |', '|---:|---|---:|---:|---:|---:|---:|---:|---:|'];
  for (const turns of sizes) {
    const base = { p50: med(BASELINE, turns, (r) => r.latency.p50), p99: med(BASELINE, turns, (r) => r.latency.p99), decode: med(BASELINE, turns, (r) => r.mainDecode.p50) };
    for (const codec of SNAPSHOT_CODECS) {
      const p50 = med(codec, turns, (r) => r.latency.p50);
      const p99 = med(codec, turns, (r) => r.latency.p99);
      const decode = med(codec, turns, (r) => r.mainDecode.p50);
      const bytes = med(codec, turns, (r) => r.bytes);
      const reps = results.filter((r) => r.codec === codec && r.turns === turns).reduce((n, r) => n + r.reps, 0);
      const line = {
        scenario: 'codec-snapshot', codec, turns, bytes, count: reps, unit: 'ms', p50, p99,
        mainDecodeP50: decode,
        ratioToStructuredClone: { p50: round(ratioOf(p50, base.p50)), p99: round(ratioOf(p99, base.p99)), mainDecodeP50: round(ratioOf(decode, base.decode)) },
      };
      process.stdout.write(JSON.stringify(line) + '\n');
      rows.push(`| ${turns} | ${codec} | ${bytes} | ${fmt(p50)} | ${fmt(p99)} | ${fmt(decode)} | ${fmtRatio(ratioOf(p50, base.p50))} | ${fmtRatio(ratioOf(p99, base.p99))} | ${fmtRatio(ratioOf(decode, base.decode))} |`);
    }
  }
  process.stdout.write(rows.join('\n') + '\n');
}
