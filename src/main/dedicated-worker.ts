// A small dedicated worker_thread that takes jobs one at a time from the main thread, for work
// that must not run there (parsing a huge input line, reading every rollout head of a home)
// and must not queue behind the actor pool, whose two workers host thread actors. The worker
// starts with the first job and is replaced when it dies or overruns a job's deadline; the job
// it had then fails, and its caller answers from what it kept, so a stuck worker costs one
// request an error, never a stall of the host.
//
// The worker side answers each `{ job, request }` it is posted with `{ job, reply }`
// (src/common/worker-jobs.ts).
import type { Worker } from 'node:worker_threads';
import type { Clock } from '../common/clock.js';
import type { LogFn } from '../common/log.js';
import type { JobReply, JobRequest } from '../common/worker-jobs.js';
import { builtin } from './lazy-builtin.js';
import { holdMainYoungGeneration } from './pool/heap-limits.js';

/** Why a job got no reply. */
export type JobFailure = 'deadline' | 'workerExited';

export type JobResult<Reply> = { kind: 'done'; reply: Reply } | { kind: 'failed'; reason: JobFailure };

export interface DedicatedWorkerOptions<Request> {
  /** The compiled worker entry. */
  filename: string;
  /** Named in the log: 'line-parser', 'stored-history'. */
  name: string;
  /** How long one job may take in the worker before it fails and the worker is replaced. */
  deadlineMs: number;
  clock: Clock;
  log: LogFn;
  /** What the log says of a job that failed (its size, say); nothing by default. */
  describe?(request: Request): Record<string, unknown>;
}

interface Job<Request, Reply> {
  id: number;
  request: Request;
  transfer: readonly ArrayBuffer[];
  resolve(result: JobResult<Reply>): void;
}

/** The worker's life: none yet (or the last one is gone), or running with at most one job. */
type WorkerState<Request, Reply> =
  | { kind: 'none' }
  | { kind: 'running'; worker: Worker; job: Job<Request, Reply> | null; deadline: unknown };

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
    return new Promise((resolve) => {
      this.#waiting.push({ id: this.#nextJob++, request, transfer, resolve });
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
    if (state.kind === 'running') {
      this.options.clock.clearTimeout(state.deadline);
      state.job?.resolve({ kind: 'failed', reason: 'workerExited' });
      await state.worker.terminate();
    }
    for (const job of this.#waiting.splice(0)) job.resolve({ kind: 'failed', reason: 'workerExited' });
  }

  #dispatch(): void {
    if (this.#closed) {
      for (const job of this.#waiting.splice(0)) job.resolve({ kind: 'failed', reason: 'workerExited' });
      return;
    }
    if (this.#state.kind === 'running' && this.#state.job !== null) return;
    const job = this.#waiting.shift();
    if (job === undefined) return;
    const worker = this.#state.kind === 'running' ? this.#state.worker : this.#start();
    const deadline = this.options.clock.setTimeout(() => this.#overran(worker, job), this.options.deadlineMs);
    this.#state = { kind: 'running', worker, job, deadline };
    const message: JobRequest<Request> = { job: job.id, request: job.request };
    worker.postMessage(message, job.transfer);
  }

  #start(): Worker {
    // worker_threads is loaded with the first job, not before a start's first reply.
    const { Worker } = builtin<typeof import('node:worker_threads')>('node:worker_threads');
    const worker = new Worker(this.options.filename);
    // Idle, it must not keep the process alive; a job in flight is held by its deadline timer.
    worker.unref();
    worker.on('message', (reply: JobReply<Reply>) => this.#answered(worker, reply));
    worker.on('error', (error) => this.options.log('error', `${this.options.name} worker failed`, { error: error.stack ?? error.message }));
    worker.on('exit', (code) => this.#exited(worker, code));
    // Node applies the process's V8 flags again as it starts a worker (heap-limits.ts).
    worker.once('online', holdMainYoungGeneration);
    return worker;
  }

  #answered(worker: Worker, reply: JobReply<Reply>): void {
    const state = this.#state;
    if (state.kind !== 'running' || state.worker !== worker || state.job?.id !== reply.job) return;
    this.options.clock.clearTimeout(state.deadline);
    this.#state = { ...state, job: null };
    state.job.resolve({ kind: 'done', reply: reply.reply });
    this.#dispatch();
  }

  #exited(worker: Worker, code: number): void {
    const state = this.#state;
    // A worker replaced after a deadline exits later; its successor is not affected.
    if (state.kind !== 'running' || state.worker !== worker) return;
    this.options.clock.clearTimeout(state.deadline);
    this.#state = { kind: 'none' };
    if (state.job !== null) {
      this.options.log('error', `${this.options.name} worker exited with a job in flight`, { code, ...this.options.describe?.(state.job.request) });
      state.job.resolve({ kind: 'failed', reason: 'workerExited' });
    }
    this.#dispatch();
  }

  #overran(worker: Worker, job: Job<Request, Reply>): void {
    const state = this.#state;
    if (state.kind !== 'running' || state.worker !== worker || state.job !== job) return;
    this.options.log('error', `${this.options.name} worker overran its deadline; replacing it`, { deadlineMs: this.options.deadlineMs, ...this.options.describe?.(job.request) });
    this.#state = { kind: 'none' };
    job.resolve({ kind: 'failed', reason: 'deadline' });
    void worker.terminate();
    this.#dispatch();
  }
}
