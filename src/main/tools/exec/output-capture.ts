// What is kept of a command's output. Each stream keeps at most EXEC_OUTPUT_MAX_BYTES and counts
// the rest; the aggregate (what the model sees) is stdout then stderr within the same cap, as
// the reference's `read_output` / `aggregate_output` (codex-rs/core/src/exec.rs).

/** The reference's `EXEC_OUTPUT_MAX_BYTES` (`DEFAULT_OUTPUT_BYTES_CAP`): 1 MiB per stream and aggregate. */
export const EXEC_OUTPUT_MAX_BYTES = 1024 * 1024;

/** The reference's `MAX_EXEC_OUTPUT_DELTAS_PER_CALL`: live chunks past this are not streamed. */
export const MAX_EXEC_OUTPUT_DELTAS_PER_CALL = 10_000;

/** One stream's retained bytes, and how many it produced in all. */
export class StreamCapture {
  private readonly chunks: Buffer[] = [];
  private retainedBytes = 0;
  private producedBytes = 0;

  constructor(private readonly maxBytes: number = EXEC_OUTPUT_MAX_BYTES) {}

  /** Keeps what fits under the cap (reference: `append_capped`); the rest is only counted. */
  append(chunk: Buffer): void {
    this.producedBytes += chunk.length;
    const room = this.maxBytes - this.retainedBytes;
    if (room <= 0) return;
    const kept = chunk.length <= room ? chunk : chunk.subarray(0, room);
    this.chunks.push(kept);
    this.retainedBytes += kept.length;
  }

  get totalBytes(): number {
    return this.producedBytes;
  }

  bytes(): Buffer {
    return Buffer.concat(this.chunks, this.retainedBytes);
  }
}

/**
 * stdout then stderr. Over the cap, stdout gets up to a third, stderr what it needs of the
 * rest, and stdout any room stderr leaves (reference: "reserve 1/3 for stdout and 2/3 for
 * stderr; rebalance unused stderr to stdout").
 */
export function aggregateOutput(stdout: Buffer, stderr: Buffer, maxBytes: number = EXEC_OUTPUT_MAX_BYTES): Buffer {
  if (stdout.length + stderr.length <= maxBytes) return Buffer.concat([stdout, stderr]);
  const wantStdout = Math.min(stdout.length, Math.floor(maxBytes / 3));
  const stderrTake = Math.min(stderr.length, maxBytes - wantStdout);
  const remaining = maxBytes - (wantStdout + stderrTake);
  const stdoutTake = wantStdout + Math.min(remaining, stdout.length - wantStdout);
  return Buffer.concat([stdout.subarray(0, stdoutTake), stderr.subarray(0, stderrTake)]);
}

/** Bytes as text, invalid UTF-8 replaced (a cap can cut a character in two). */
export function lossyText(bytes: Buffer): string {
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes);
}
