// Parses input lines too large for the main thread on a small dedicated worker_thread (not the
// actor pool, whose two workers host thread actors and must never queue behind a parse). The
// worker starts on the first large line, takes one line at a time, and is replaced when it
// dies or overruns its deadline; the line it had is then answered like a line over a limit
// (the overload error when its head shows a request), so a stuck parse costs its own
// connection one retryable error, never a stall of the host.
import type { Worker } from 'node:worker_threads';
import type { Clock } from '../../common/clock.js';
import type { ParseReply, ParseRequest, TransferredOutcome } from '../../common/line-parser-messages.js';
import type { LineOutcome } from '../../common/line-outcome.js';
import type { LogFn } from '../../common/log.js';
import { fromTransfer } from '../../common/parsed-json-transfer.js';
import { builtin } from '../lazy-builtin.js';
import { firstBytes } from '../transport/line-splitter.js';
import { holdMainYoungGeneration } from '../pool/heap-limits.js';

// What a failed line's overload reply is read from: as much as stdio keeps of a line that is
// too long (OVERSIZED_HEAD_BYTES), enough for `{"id":…,"method":"…"` with a long id.
const HEAD_BYTES = 4096;

/** Why a large line got no outcome from the worker. */
export type ParseFailure = 'deadline' | 'workerExited';

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

interface Job {
  id: number;
  segments: Uint8Array[];
  bytes: number;
  head: Buffer;
  resolve(outcome: LargeLineOutcome): void;
}

/** The worker's life: none yet (or the last one is gone), or running with at most one job. */
type WorkerState = { kind: 'none' } | { kind: 'running'; worker: Worker; job: Job | null; deadline: unknown };

export class LargeLineParser {
  readonly #waiting: Job[] = [];
  #state: WorkerState = { kind: 'none' };
  #nextJob = 1;
  #closed = false;

  constructor(private readonly options: LargeLineParserOptions) {}

  /**
   * Parses one line given as `segments`, each the only view of its own ArrayBuffer: they are
   * transferred to the worker, not copied, and unusable here afterwards. Never rejects.
   */
  parse(segments: Uint8Array[]): Promise<LargeLineOutcome> {
    const bytes = segments.reduce((sum, segment) => sum + segment.byteLength, 0);
    return new Promise((resolve) => {
      // Copied before the transfer: the overload reply for a failed parse needs the request id.
      const head = firstBytes(segments, HEAD_BYTES);
      this.#waiting.push({ id: this.#nextJob++, segments, bytes, head, resolve });
      this.#dispatch();
    });
  }

  /** True while a worker is up (started by a large line, not yet dead or replaced). */
  get running(): boolean {
    return this.#state.kind === 'running';
  }

  /** Stops the worker; lines still waiting or in flight fail as if it had exited. */
  async close(): Promise<void> {
    this.#closed = true;
    const state = this.#state;
    this.#state = { kind: 'none' };
    if (state.kind === 'running') {
      this.options.clock.clearTimeout(state.deadline);
      if (state.job !== null) fail(state.job, 'workerExited');
      await state.worker.terminate();
    }
    for (const job of this.#waiting.splice(0)) fail(job, 'workerExited');
  }

  #dispatch(): void {
    if (this.#closed) {
      for (const job of this.#waiting.splice(0)) fail(job, 'workerExited');
      return;
    }
    if (this.#state.kind === 'running' && this.#state.job !== null) return;
    const job = this.#waiting.shift();
    if (job === undefined) return;
    const worker = this.#state.kind === 'running' ? this.#state.worker : this.#start();
    const deadline = this.options.clock.setTimeout(() => this.#overran(worker, job), this.options.deadlineMs);
    this.#state = { kind: 'running', worker, job, deadline };
    const request: ParseRequest = { job: job.id, segments: job.segments };
    // A segment's buffer listed twice would make postMessage throw; each is listed once.
    worker.postMessage(request, [...new Set(job.segments.map((segment) => segment.buffer as ArrayBuffer))]);
  }

  #start(): Worker {
    // worker_threads is loaded with the first large line, not before a start's first reply.
    const { Worker } = builtin<typeof import('node:worker_threads')>('node:worker_threads');
    const worker = new Worker(this.options.filename);
    // Idle, it must not keep the process alive; a line in flight is held by its deadline timer
    // and, over stdio, by the connection's close waiting behind it.
    worker.unref();
    worker.on('message', (reply: ParseReply) => this.#answered(worker, reply));
    worker.on('error', (error) => this.options.log('error', 'line-parser worker failed', { error: error.stack ?? error.message }));
    worker.on('exit', (code) => this.#exited(worker, code));
    // Node applies the process's V8 flags again as it starts a worker (heap-limits.ts).
    worker.once('online', holdMainYoungGeneration);
    return worker;
  }

  #answered(worker: Worker, reply: ParseReply): void {
    const state = this.#state;
    if (state.kind !== 'running' || state.worker !== worker || state.job?.id !== reply.job) return;
    this.options.clock.clearTimeout(state.deadline);
    this.#state = { ...state, job: null };
    state.job.resolve(received(reply.outcome));
    this.#dispatch();
  }

  #exited(worker: Worker, code: number): void {
    const state = this.#state;
    // A worker replaced after a deadline exits later; its successor is not affected.
    if (state.kind !== 'running' || state.worker !== worker) return;
    this.options.clock.clearTimeout(state.deadline);
    this.#state = { kind: 'none' };
    if (state.job !== null) {
      this.options.log('error', 'line-parser worker exited with a line in flight', { code, bytes: state.job.bytes });
      fail(state.job, 'workerExited');
    }
    this.#dispatch();
  }

  #overran(worker: Worker, job: Job): void {
    const state = this.#state;
    if (state.kind !== 'running' || state.worker !== worker || state.job !== job) return;
    this.options.log('error', 'line-parser worker overran its deadline; replacing it', { deadlineMs: this.options.deadlineMs, bytes: job.bytes });
    this.#state = { kind: 'none' };
    fail(job, 'deadline');
    void worker.terminate();
    this.#dispatch();
  }
}

function received(outcome: TransferredOutcome): LineOutcome {
  return outcome.kind === 'parsed' ? { kind: 'parsed', parsed: fromTransfer(outcome.parsed) } : outcome;
}

function fail(job: Job, reason: ParseFailure): void {
  job.resolve({ kind: 'failed', reason, head: job.head, bytes: job.bytes });
}
