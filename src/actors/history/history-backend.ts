// What a thread's actor needs of the store its history lives in, whichever that is: the
// actor never asks where the history is, only for these. open-history-backend.ts picks the
// implementation (files/, postgres/, or an ephemeral thread's that writes nothing).
import type { ForkRequest, RevertRequest } from '../../common/actor-messages.js';
import type { ParsedRollout } from '../../common/rollout/rollout-reader.js';
import type { TurnEndReceipt } from '../../common/turn-end-revision.js';
import type { HistoryMode, SessionMetaInput } from '../rollout-writer/rollout-format.js';
import type { HistoryAppender, OrdinalStamp } from './history-appender.js';

/** A cold resume's read: the history, and where the actor's appends go on from it. */
export interface ResumedHistory {
  /** As a read shows it: with the preview of the thread's first message ever. */
  rollout: ParsedRollout;
  /** The format the history is written in, and goes on being written in. */
  historyMode: HistoryMode;
  /** The ordinal of the next line appended (0 without ordinals). */
  nextOrdinal: number;
}

/**
 * A copy of the appended history kept elsewhere as lines land (the reference's history
 * database of the files store). The actor drives only its lifecycle: its turns, and waiting
 * for it before it goes quiet.
 */
export interface HistoryProjection {
  /** A turn starts: what lingers from the last one may go now. */
  nextTurn(): void;
  /** Lines landed that the projection has yet to receive. */
  readonly pending: boolean;
  /** Projects everything landed so far. */
  flush(): Promise<void>;
  /** The writer lost the thread: nothing more is projected. */
  stop(): void;
}

/** The projection of a history nothing else keeps a copy of. */
export const NO_PROJECTION: HistoryProjection = {
  nextTurn: () => undefined,
  pending: false,
  flush: () => Promise.resolve(),
  stop: () => undefined,
};

export interface HistoryBackend {
  /** How logs and errors name the history. */
  readonly name: string;
  /** The rollout file's path, as `materialized` reports it; null when the history is not a file. */
  readonly path: string | null;
  /** The projection of the current appender's lines; NO_PROJECTION when there is none. */
  readonly projection: HistoryProjection;
  /** Writes a fork's first lines from its source, before the fork is read back as any resume. */
  startFork(fork: ForkRequest, meta: SessionMetaInput, nowMs: number): Promise<void>;
  /** Writes what a revert keeps of the thread's history, before it is read back. */
  startRevert(revert: RevertRequest, meta: SessionMetaInput): Promise<void>;
  /**
   * The history as a cold resume reads it; refuses one this host cannot append to. Null when
   * there is nothing to read (an ephemeral thread that is no fork).
   */
  read(): Promise<ResumedHistory | null>;
  /** Opens the history's one appender (null: nothing is ever written), going on at `ordinals`. */
  openAppender(ordinals: OrdinalStamp | null): HistoryAppender | null;
  /**
   * The read receipt a completed or failed turn's last lines carry, on a store that keeps one
   * with them (one statement, not two); undefined where the host keeps it.
   */
  receipt(turnId: string): TurnEndReceipt | undefined;
}
