// History read from disk, off the main thread, by two stored-history workers (both
// workers/stored-history.ts): one walks <home>/sessions and keeps every rollout's head for
// `thread/list`; the other reads, replays and serializes the rollout of a thread that is not
// loaded for `thread/read`, `thread/turns/list` and `thread/items/list`, so a read of a huge
// rollout, or one hung on a network filesystem, never holds the listings up (nor the other way
// round). The main thread posts the validated request and sends what comes back (a page to
// show, or the result's bytes), so a home of thousands of rollouts or a thread of tens of
// megabytes costs it microseconds.
import type { Clock } from '../../common/clock.js';
import { asRpcError, RpcError, type ErrorCodeValue } from '../../common/errors.js';
import type { HistoryMode } from '../../common/rollout/rollout-reader.js';
import { describeListing, describeLocation, listingLogFields } from '../../common/history-location.js';
import type { LogFn } from '../../common/log.js';
import type { StoredHistoryReply, StoredHistoryRequest, StoredRead, ThreadPage, ThreadPageQuery } from '../../common/stored-history-messages.js';
import { DedicatedWorker, type JobFailure, type JobResult } from '../dedicated-worker.js';
import { EncodedJson } from '../protocol/encoded-json.js';

/** A StoredRead's answer: the result, serialized by the worker, and the thread's history mode. */
export type StoredAnswer = { kind: 'answer'; result: EncodedJson; historyMode: HistoryMode } | { kind: 'noRollout' };

/** Where requests run: a worker in the host (a DedicatedWorker); in-process in handler tests. */
export interface StoredHistoryJobs {
  run(request: StoredHistoryRequest): Promise<JobResult<StoredHistoryReply>>;
  close(): Promise<void>;
}

/** Listings and reads run apart. */
export interface StoredHistoryLanes {
  listing: StoredHistoryJobs;
  reading: StoredHistoryJobs;
}

export interface StoredHistoryOptions {
  /** The compiled worker entry (workers/stored-history.js). */
  filename: string;
  /** How long a request may go without progress before it fails and the worker (and all it kept) is replaced. */
  deadlineMs: number;
  clock: Clock;
  log: LogFn;
}

/** The workers `inWorkers` runs, one per lane (the descriptor budget counts them). */
export const STORED_HISTORY_WORKERS = 2;

export class StoredHistory {
  /** Requests run in two stored-history workers, one for listings and one for reads, each started with its first. */
  static inWorkers(options: StoredHistoryOptions): StoredHistory {
    const lane = (name: string) => new DedicatedWorker<StoredHistoryRequest, StoredHistoryReply>({ ...options, name, describe: describeRequest });
    return new StoredHistory({ listing: lane('stored-history listing'), reading: lane('stored-history reading') }, options.deadlineMs, options.log);
  }

  constructor(
    private readonly lanes: StoredHistoryLanes,
    private readonly deadlineMs: number,
    private readonly log: LogFn,
  ) {}

  /** One thread/list page; rejects with the RpcError the client is sent. */
  async listPage(query: ThreadPageQuery): Promise<ThreadPage> {
    const request: StoredHistoryRequest = { kind: 'list', query };
    const reply = this.#replyOf(request, await this.lanes.listing.run(request), 'thread/list', `reading ${describeListing(query.source)}`);
    if (reply.kind === 'page') return reply;
    throw unexpected('thread/list', reply);
  }

  /** One request about a thread that is not loaded, for `method`; rejects with the RpcError the client is sent. */
  async read(request: StoredRead, method: string): Promise<StoredAnswer> {
    const reply = this.#replyOf(request, await this.lanes.reading.run(request), method, `reading ${describeLocation(request.location, request.threadId)}`);
    if (reply.kind === 'noRollout') return reply;
    if (reply.kind === 'answer') {
      return { kind: 'answer', result: EncodedJson.of(reply.json), historyMode: reply.historyMode };
    }
    throw unexpected(method, reply);
  }

  async close(): Promise<void> {
    await Promise.all([this.lanes.listing.close(), this.lanes.reading.close()]);
  }

  /** The worker's reply, or the RpcError it stands for: its own, a failure, a deadline, an exit. */
  #replyOf(request: StoredHistoryRequest, result: JobResult<StoredHistoryReply>, method: string, doing: string): StoredHistoryReply {
    if (result.kind === 'failed') throw failed(method, FAILURES[result.reason](doing, this.deadlineMs));
    const reply = result.reply;
    if (reply.kind === 'rpcError') throw new RpcError(reply.code as ErrorCodeValue, reply.message, reply.data);
    if (reply.kind === 'failed') {
      // The router logs only failures it did not word itself; this one came from another thread.
      this.log('error', `${method} failed in the stored-history worker`, { ...describeRequest(request), error: reply.stack ?? reply.message });
      throw failed(method, reply.message);
    }
    return reply;
  }
}

const FAILURES: Record<JobFailure, (doing: string, deadlineMs: number) => string> = {
  // A listing reports progress file by file; a read of one rollout does not.
  deadline: (doing, ms) => `${doing} did not finish or report progress within ${ms} ms`,
  workerExited: () => 'the stored-history worker exited',
  workerStuck: (_doing, ms) => `the stored-history worker is still blocked in a read that made no progress for ${ms} ms (a hung filesystem?); retry once it returns`,
};

/** What the log says of a request: where it was reading. */
export function describeRequest(request: StoredHistoryRequest): Record<string, unknown> {
  if (request.kind === 'list') return { request: 'list', ...listingLogFields(request.query.source) };
  return { request: request.kind, history: describeLocation(request.location, request.threadId) };
}

/** Worded as the router words any other failure of a request. */
const failed = (method: string, detail: string): RpcError => asRpcError(new Error(detail), method);

const unexpected = (method: string, reply: StoredHistoryReply): RpcError => failed(method, `unexpected answer from the stored-history worker: ${reply.kind}`);
