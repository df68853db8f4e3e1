// An ephemeral thread's history: never written. A fork of one is only read, from its source
// as its rollout would hold it (fork-rollout.ts), and lives in the actor's memory after.
import type { ForkRequest, RevertRequest } from '../../common/actor-messages.js';
import { historyModeOf, parseRollout } from '../../common/rollout/rollout-reader.js';
import { ephemeralForkText, fileForkSource, storeForkSource, type ForkSource } from '../rollout-writer/fork-rollout.js';
import type { SessionMetaInput } from '../rollout-writer/rollout-format.js';
import { NO_PROJECTION, type HistoryBackend, type ResumedHistory } from './history-backend.js';
import { readStoredRolloutIfAny } from './postgres/worker-postgres.js';

export class EphemeralBackend implements HistoryBackend {
  readonly #threadId: string;
  readonly #answersWithTurns: boolean;
  /** A fork's history, as its rollout would hold it; null for a thread that is no fork. */
  #forkText: string | null = null;
  readonly path = null;
  readonly projection = NO_PROJECTION;

  constructor(threadId: string, answersWithTurns: boolean) {
    this.#threadId = threadId;
    this.#answersWithTurns = answersWithTurns;
  }

  get name(): string {
    return `ephemeral thread ${this.#threadId}`;
  }

  async startFork(fork: ForkRequest, meta: SessionMetaInput, nowMs: number): Promise<void> {
    this.#forkText = ephemeralForkText(fork, meta, nowMs, this.#answersWithTurns, await forkSource(fork));
  }

  startRevert(_revert: RevertRequest, _meta: SessionMetaInput): Promise<void> {
    return Promise.reject(new Error(`${this.name} has no history to revert`));
  }

  async read(): Promise<ResumedHistory | null> {
    if (this.#forkText === null) return null;
    const rollout = parseRollout(this.#forkText);
    // Never appended to: its format is only how its turns are told.
    return { rollout, historyMode: historyModeOf(rollout.meta!), nextOrdinal: 0 };
  }

  openAppender(): null {
    return null;
  }

  receipt(): undefined {
    return undefined;
  }
}

// The fork's source, from whichever store holds it; null when it holds none.
async function forkSource(fork: ForkRequest): Promise<ForkSource | null> {
  if (fork.source.store === 'files') return fileForkSource(fork);
  return storeForkSource(await readStoredRolloutIfAny(fork.source.connection, fork.sourceThreadId));
}
