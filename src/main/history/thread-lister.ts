// Where `thread/list` pages come from: the thread-listing worker (workers/thread-listing.ts),
// which walks <home>/sessions, reads and keeps every rollout's head, and answers one page at a
// time. The main thread only posts the validated query and shows the page, so a listing of a
// home of thousands of rollouts costs it microseconds however long the worker reads.
import type { Clock } from '../../common/clock.js';
import type { LogFn } from '../../common/log.js';
import type { ThreadPageQuery, ThreadPageReply } from '../../common/thread-listing-messages.js';
import { DedicatedWorker } from '../dedicated-worker.js';
import { internalError, type RpcError } from '../errors.js';

/** A page as the worker read it. */
export type ThreadPage = Extract<ThreadPageReply, { kind: 'page' }>;

/** What `thread/list` asks for its pages (the worker in the host; tests may list in-process). */
export interface ThreadPages {
  /** One page; rejects with the RpcError the client is sent. */
  list(query: ThreadPageQuery): Promise<ThreadPage>;
  close(): Promise<void>;
}

export interface ThreadListerOptions {
  /** The compiled worker entry (workers/thread-listing.js). */
  filename: string;
  /** How long one listing may take before it fails and the worker (and all it kept) is replaced. */
  deadlineMs: number;
  clock: Clock;
  log: LogFn;
}

export class ThreadLister implements ThreadPages {
  readonly #worker: DedicatedWorker<ThreadPageQuery, ThreadPageReply>;

  constructor(private readonly options: ThreadListerOptions) {
    this.#worker = new DedicatedWorker({ ...options, name: 'thread-listing' });
  }

  async list(query: ThreadPageQuery): Promise<ThreadPage> {
    const result = await this.#worker.run(query);
    if (result.kind === 'done') {
      if (result.reply.kind === 'page') return result.reply;
      throw listingFailed(result.reply.message);
    }
    throw listingFailed(
      result.reason === 'deadline'
          ? `reading the rollouts under ${query.home}/sessions took longer than ${this.options.deadlineMs} ms`
          : 'the thread-listing worker exited',
    );
  }

  close(): Promise<void> {
    return this.#worker.close();
  }
}

/** As the router words any other failure of a request (asRpcError). */
const listingFailed = (detail: string): RpcError => internalError(`thread/list failed with message: ${detail}`);
