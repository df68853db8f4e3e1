// Parses input lines too large for the main thread on a small dedicated worker_thread (not the
// actor pool, whose two workers host thread actors and must never queue behind a parse). The
// worker starts on the first large line, takes one line at a time, and is replaced when it
// dies or overruns its deadline; the line it had is then answered like a line over a limit
// (the overload error when its head shows a request), so a stuck parse costs its own
// connection one retryable error, never a stall of the host.
import type { Clock } from '../../common/clock.js';
import type { ParseReply, ParseRequest } from '../../common/line-parser-messages.js';
import type { LineOutcome } from '../../common/line-outcome.js';
import type { LogFn } from '../../common/log.js';
import { fromTransfer } from '../../common/parsed-json-transfer.js';
import { DedicatedWorker, type JobFailure } from '../dedicated-worker.js';
import { firstBytes } from '../transport/line-splitter.js';

// What a failed line's overload reply is read from: as much as stdio keeps of a line that is
// too long (OVERSIZED_HEAD_BYTES), enough for `{"id":…,"method":"…"` with a long id.
const HEAD_BYTES = 4096;

/** Why a large line got no outcome from the worker. */
export type ParseFailure = JobFailure;

/** A large line's outcome; `failed` keeps the line's first bytes for the overload reply. */
export type LargeLineOutcome = LineOutcome | { kind: 'failed'; reason: ParseFailure; head: Buffer; bytes: number };

export interface LargeLineParserOptions {
  /** The compiled worker entry (workers/line-parser.js). */
  filename: string;
  /** How long one line may take in the worker before it is given up and the worker replaced. */
  deadlineMs: number;
  clock: Clock;
  log: LogFn;
}

export class LargeLineParser {
  readonly #worker: DedicatedWorker<ParseRequest, ParseReply>;

  constructor(options: LargeLineParserOptions) {
    this.#worker = new DedicatedWorker({
      ...options,
      name: 'line-parser',
      describe: (request) => ({ bytes: request.segments.reduce((sum, segment) => sum + segment.byteLength, 0) }),
    });
  }

  /**
   * Parses one line given as `segments`, each the only view of its own ArrayBuffer: they are
   * transferred to the worker, not copied, and unusable here afterwards. Never rejects.
   */
  async parse(segments: Uint8Array[]): Promise<LargeLineOutcome> {
    const bytes = segments.reduce((sum, segment) => sum + segment.byteLength, 0);
    // Copied before the transfer: the overload reply for a failed parse needs the request id.
    const head = firstBytes(segments, HEAD_BYTES);
    // A segment's buffer listed twice would make postMessage throw; each is listed once.
    const result = await this.#worker.run({ segments }, [...new Set(segments.map((segment) => segment.buffer as ArrayBuffer))]);
    return result.kind === 'done' ? received(result.reply) : { kind: 'failed', reason: result.reason, head, bytes };
  }

  /** True while a worker is up (started by a large line, not yet dead or replaced). */
  get running(): boolean {
    return this.#worker.running;
  }

  /** Stops the worker; lines still waiting or in flight fail as if it had exited. */
  close(): Promise<void> {
    return this.#worker.close();
  }
}

function received(outcome: ParseReply): LineOutcome {
  return outcome.kind === 'parsed' ? { kind: 'parsed', parsed: fromTransfer(outcome.parsed) } : outcome;
}
