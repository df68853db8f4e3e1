// A small dedicated worker_thread that takes jobs one at a time from the main thread, for work
// that must not run there (parsing a huge input line, reading history from disk) and must not
// queue behind the actor pool, whose two workers host thread actors. The worker starts with the
// first job and is replaced when it dies or overruns a job's deadline; the job it had then
// fails, and its caller answers from what it kept, so a stuck worker costs one request an
// error, never a stall of the host.
//
// The worker side answers each `{ job, request }` it is posted with `{ job, reply }`, and may
// post `{ job, progress: true }` while it works: each one restarts the job's deadline, so a
// long job that keeps going (a first listing of a large network home) is not taken for a stuck
// one (src/common/worker-jobs.ts).
//
// A worker blocked in a system call (a hung network filesystem) cannot be terminated until the
// call returns. The next one starts only once the last has exited, so a hang costs one thread,
// not one more per deadline; until then jobs wait, and past another deadline they fail as
// 'workerStuck' at once.
import type { Worker } from 'node:worker_threads';
import type { Clock } from '../common/clock.js';
import { withDeadline } from '../common/deadline.js';
import type { LogFn } from '../common/log.js';
import type { JobMessage, JobRequest } from '../common/worker-jobs.js';
import { builtin } from './lazy-builtin.js';
import { ensureFileThreadsStarted } from './file-threads.js';
import { holdMainYoungGeneration } from './pool/heap-limits.js';

/** Why a job got no reply. */
export type JobFailure = 'deadline' | 'workerExited' | 'workerStuck';

export type JobResult<Reply> = { kind: 'done'; reply: Reply } | { kind: 'failed'; reason: JobFailure };

export interface DedicatedWorkerOptions<Request> {
  /** The compiled worker entry. */
  filename: string;
  /** Named in the log: 'line-parser', 'stored-history'. */
  name: string;
  /** How long a job may go without a reply or progress before it fails and the worker is replaced. */
  deadlineMs: number;
  clock: Clock;
  log: LogFn;
  /** What the log says of a job that failed (its size, say), read as the job is queued; nothing by default. */
  describe?(request: Request): Record<string, unknown>;
}

// How long close() waits for the worker to end: one blocked in a system call never does.
const CLOSE_WAIT_MS = 1_000;

interface Job<Request, Reply> {
  id: number;
  request: Request;
  transfer: readonly ArrayBuffer[];
  /** For the log, taken before the transfer empties the request's buffers. */
  detail: Record<string, unknown>;
  resolve(result: JobResult<Reply>): void;
}

/**
 * The worker's life: none yet (or the last one is gone); running with at most one job; replaced,
 * terminated but not yet exited (jobs wait, for a deadline); stuck, still not exited after it.
 */
type WorkerState<Request, Reply> =
  | { kind: 'none' }
  | { kind: 'running'; worker: Worker; job: Job<Request, Reply> | null; deadline: unknown }
  | { kind: 'replaced'; worker: Worker; deadline: unknown }
  | { kind: 'stuck'; worker: Worker };

export class DedicatedWorker<Request, Reply> {
  readonly #waiting: Array<Job<Request, Reply>> = [];
  #state: WorkerState<Request, Reply> = { kind: 'none' };
  #nextJob = 1;
  #closed = false;

  constructor(private readonly options: DedicatedWorkerOptions<Request>) {}

  /**
   * Runs one job after those already waiting. The buffers in `transfer` move to the worker
   * (unusable here afterwards); each must be listed once. Never rejects.
   */
  run(request: Request, transfer: readonly ArrayBuffer[] = []): Promise<JobResult<Reply>> {
    const detail = this.options.describe?.(request) ?? {};
    return new Promise((resolve) => {
      this.#waiting.push({ id: this.#nextJob++, request, transfer, detail, resolve });
      this.#dispatch();
    });
  }

  /** True while a worker is up (started by a job, not yet dead or replaced). */
  get running(): boolean {
    return this.#state.kind === 'running';
  }

  /** Stops the worker; jobs still waiting or in flight fail as if it had exited. */
  async close(): Promise<void> {
    this.#closed = true;
    const state = this.#state;
    this.#state = { kind: 'none' };
    if (state.kind === 'running' || state.kind === 'replaced') this.options.clock.clearTimeout(state.deadline);
    if (state.kind === 'running') state.job?.resolve({ kind: 'failed', reason: 'workerExited' });
    for (const job of this.#waiting.splice(0)) job.resolve({ kind: 'failed', reason: 'workerExited' });
    if (state.kind === 'none') return;
    await withDeadline(state.worker.terminate(), CLOSE_WAIT_MS, this.options.clock, () => undefined);
  }

  #dispatch(): void {
    const state = this.#state;
    if (this.#closed || state.kind === 'stuck') {
      const reason = this.#closed ? 'workerExited' : 'workerStuck';
      for (const job of this.#waiting.splice(0)) job.resolve({ kind: 'failed', reason });
      return;
    }
    if (state.kind === 'replaced' || (state.kind === 'running' && state.job !== null)) return;
    const job = this.#waiting.shift();
    if (job === undefined) return;
    const worker = state.kind === 'running' ? state.worker : this.#start();
    this.#state = { kind: 'running', worker, job, deadline: this.#deadlineFor(worker, job) };
    const message: JobRequest<Request> = { job: job.id, request: job.request };
    worker.postMessage(message, job.transfer);
  }

  #deadlineFor(worker: Worker, job: Job<Request, Reply>): unknown {
    return this.options.clock.setTimeout(() => this.#overran(worker, job), this.options.deadlineMs);
  }

  #start(): Worker {
    // worker_threads is loaded with the first job, not before a start's first reply.
    const { Worker } = builtin<typeof import('node:worker_threads')>('node:worker_threads');
    ensureFileThreadsStarted();
    const worker = new Worker(this.options.filename);
    // Idle, it must not keep the process alive (its caller's connection or listener does).
    worker.unref();
    worker.on('message', (message: JobMessage<Reply>) => this.#received(worker, message));
    worker.on('error', (error) => this.options.log('error', `${this.options.name} worker failed`, { error: error.stack ?? error.message }));
    worker.on('exit', (code) => this.#exited(worker, code));
    // Node applies the process's V8 flags again as it starts a worker (heap-limits.ts).
    worker.once('online', holdMainYoungGeneration);
    return worker;
  }

  #received(worker: Worker, message: JobMessage<Reply>): void {
    const state = this.#state;
    if (state.kind !== 'running' || state.worker !== worker || state.job?.id !== message.job) return;
    this.options.clock.clearTimeout(state.deadline);
    if ('progress' in message) {
      this.#state = { ...state, deadline: this.#deadlineFor(worker, state.job) };
      return;
    }
    this.#state = { ...state, job: null };
    state.job.resolve({ kind: 'done', reply: message.reply });
    this.#dispatch();
  }

  #exited(worker: Worker, code: number): void {
    const state = this.#state;
    if (state.kind === 'none' || state.worker !== worker) return;
    if (state.kind === 'running' || state.kind === 'replaced') this.options.clock.clearTimeout(state.deadline);
    this.#state = { kind: 'none' };
    if (state.kind === 'running' && state.job !== null) {
      this.options.log('error', `${this.options.name} worker exited with a job in flight`, { code, ...state.job.detail });
      state.job.resolve({ kind: 'failed', reason: 'workerExited' });
    }
    if (state.kind === 'stuck') this.options.log('info', `${this.options.name} worker that was stuck has exited; starting another for the next job`);
    this.#dispatch();
  }

  #overran(worker: Worker, job: Job<Request, Reply>): void {
    const state = this.#state;
    if (state.kind !== 'running' || state.worker !== worker || state.job !== job) return;
    this.options.log('error', `${this.options.name} worker overran its deadline; replacing it`, { deadlineMs: this.options.deadlineMs, ...job.detail });
    job.resolve({ kind: 'failed', reason: 'deadline' });
    void worker.terminate();
    // Jobs wait for it to go; if it does not within another deadline, it is stuck.
    const deadline = this.options.clock.setTimeout(() => this.#stuck(worker), this.options.deadlineMs);
    this.#state = { kind: 'replaced', worker, deadline };
  }

  #stuck(worker: Worker): void {
    const state = this.#state;
    if (state.kind !== 'replaced' || state.worker !== worker) return;
    this.options.log('error', `${this.options.name} worker does not end (blocked in a system call?); its jobs fail until it does`, { deadlineMs: this.options.deadlineMs });
    this.#state = { kind: 'stuck', worker };
    this.#dispatch();
  }
}
