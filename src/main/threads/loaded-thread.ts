// The main thread's record of one loaded thread: lifecycle, subscribers, the mirror of its
// turns (so reads are answered from memory, never by asking the worker), its writer lock
// and where its actor lives.
import type { ThreadSettings } from '../../common/actor-messages.js';
import type { TokenUsageSnapshot } from '../../common/token-usage.js';
import type { ConnectionId } from '../connections.js';
import type { WriterLock } from '../locks/writer-lock-backend.js';
import type { ThreadLifecycle } from './lifecycle.js';
import { transition } from './lifecycle.js';
import { Mailbox } from '../../common/mailbox.js';
import type { HistorySource } from '../../common/history/history-pages.js';
import type { SessionSource } from '../../common/history/session-source.js';
import type { HistoryMode, TurnPosition } from '../../common/history/rollout-reader.js';
import type { Turn, UserInput } from '../../common/wire-types.js';
import type { WriteFence } from '../../common/write-fence.js';
import type { EncodedJson } from '../protocol/encoded-json.js';


/** The loaded status shown on the wire (`notLoaded` is never stored; absence means it). */
export type LoadedStatus = { type: 'idle' } | { type: 'active'; activeFlags: string[] } | { type: 'systemError' };

/** Static facts about a thread, fixed when it is created or resumed. */
export interface ThreadIdentity {
  createdAtMs: number;
  path: string | null;
  ephemeral: boolean;
  originator: string;
  cliVersion: string;
  source: SessionSource;
}

/** The status every idle thread shares: statuses are replaced, never changed in place. */
export const IDLE: LoadedStatus = Object.freeze({ type: 'idle' });

let nextGeneration = 1;

/** One loaded thread, owned by the main thread. */
export class LoadedThread {
  /** Distinguishes incarnations of the same id, so a late unload never removes a newer one. */
  readonly generation = nextGeneration++;
  // Created on first use: most threads never queue a lifecycle request (a Mailbox and its
  // settled promise are ~100 bytes each of 10,000 idle threads).
  #mailbox: Mailbox | null = null;
  readonly subscribers = new Set<ConnectionId>();
  lifecycle: ThreadLifecycle;
  identity: ThreadIdentity | null = null;
  settings: ThreadSettings | null = null;
  status: LoadedStatus = IDLE;
  turns: Turn[] = [];
  /** The rollout's history format; a resumed thread keeps its file's. */
  historyMode: HistoryMode = 'paginated';
  /**
   * Large turn inputs sent to the actor and not yet echoed back (encoded-content.ts), by turn
   * id; created on first use.
   */
  #largeInputs: Map<string, readonly UserInput[]> | null = null;
  /**
   * The first `count` turns as fullTurns shows them, serialized by the pool worker that read
   * them at a cold resume (see full-history.ts); null when not resumed from disk here.
   */
  resumedHistoryJson: { count: number; json: EncodedJson } | null = null;
  /**
   * A cold resume's turns still being decoded into `turns`, a slice per event-loop iteration
   * (mirror-fill.ts); requests that read or change the turns wait for it. Null when filled.
   */
  mirrorFill: Promise<void> | null = null;
  /**
   * Where each turn and its items sit in a paginated rollout, by index, aligned with `turns`
   * (the paged reads' cursors); created with the first position known, and shorter than
   * `turns` where the last turns have none (legacy and ephemeral threads have none at all).
   */
  #positions: Array<TurnPosition | undefined> | null = null;
  preview = '';
  updatedAtMs = 0;
  /** True once the rollout file exists (the first turn has started). */
  materialized = false;
  lastTokenUsage: TokenUsageSnapshot | null = null;
  /** The lock that makes this process the thread's one writer; null for ephemeral threads. */
  writerLock: WriterLock | null = null;
  /** Idle seconds before unload for this thread (config, or the thread's `config` map); null = never. */
  unloadDelaySecs: number | null = null;
  /** Shared with the actor: tells the unload whether it may skip waiting for the actor's close. */
  fence: WriteFence | null = null;
  /**
   * A new thread's actor being placed in the pool: thread/start answers once the writer lock is
   * held, and commands for the actor wait for this (actor-link.ts), as does the unload. Never
   * rejects; null once the actor is placed (or its placement failed).
   */
  actorPlacement: Promise<void> | null = null;
  /** Turns accepted but not finished, the running one included. */
  pendingTurns = 0;
  runningTurnId: string | null = null;
  noSubscribersSince: number;
  inactiveSince: number;

  constructor(
    readonly id: string,
    now: number,
  ) {
    this.lifecycle = { kind: 'loading', since: now };
    this.noSubscribersSince = now;
    this.inactiveSince = now;
  }

  /** Lifecycle requests about this thread (resume, unload) run here one at a time. */
  get mailbox(): Mailbox {
    return (this.#mailbox ??= new Mailbox());
  }

  moveTo(next: ThreadLifecycle): void {
    this.lifecycle = transition(this.lifecycle, next);
  }

  /** Adds a subscriber; returns false when it was already subscribed. */
  subscribe(connection: ConnectionId): boolean {
    if (this.subscribers.has(connection)) return false;
    this.subscribers.add(connection);
    return true;
  }

  /** Removes a subscriber; returns false when it was not subscribed. */
  unsubscribe(connection: ConnectionId, now: number): boolean {
    if (!this.subscribers.delete(connection)) return false;
    if (this.subscribers.size === 0) this.noSubscribersSince = now;
    return true;
  }

  /** Loaded (or unloading) with its identity known: reads are answered from this mirror, not the disk. */
  get readsFromMirror(): boolean {
    return (this.lifecycle.kind === 'loaded' || this.lifecycle.kind === 'unloading') && this.identity !== null;
  }

  get turnRunning(): boolean {
    return this.pendingTurns > 0;
  }

  /** The mirror as a history source, for paged reads and cursors. */
  historySource(): HistorySource {
    return { threadId: this.id, mode: this.historyMode, turns: this.turns, turnOrdinal: (i) => this.turnOrdinal(i), itemOrdinal: (i, j) => this.itemOrdinal(i, j) };
  }

  /** Where turn `i`'s record sits in the rollout; null where not known. Allocates nothing. */
  turnOrdinal(i: number): number | null {
    return this.#positions?.[i]?.ordinal ?? null;
  }

  /** Where item `j` of turn `i` sits in the rollout; null where not known. */
  itemOrdinal(i: number, j: number): number | null {
    return this.#positions?.[i]?.items[j] ?? null;
  }

  /** Appends turns read from the rollout, with where each sits (one position per turn). */
  appendResumed(turns: readonly Turn[], positions: readonly TurnPosition[]): void {
    const at = this.turns.length;
    for (const turn of turns) this.turns.push(turn);
    const known = (this.#positions ??= []);
    positions.forEach((position, i) => (known[at + i] = position));
  }

  /** Records the ordinal of a live turn's record (turn) or of one of its items, once it is in the mirror. */
  notePosition(turnId: string, ordinal: number | null, itemId?: string): void {
    if (ordinal === null) return;
    const i = this.#indexOf(turnId);
    if (i < 0) return;
    const known = (this.#positions ??= []);
    const position = (known[i] ??= { ordinal: null, items: [] });
    if (itemId === undefined) {
      position.ordinal = ordinal;
      return;
    }
    const j = this.turns[i]!.items.findIndex((item) => item.id === itemId);
    if (j >= 0) position.items[j] = ordinal;
  }

  /** Keeps a large input sent to the actor until its user-message event comes back. */
  keepLargeInput(turnId: string, input: readonly UserInput[]): void {
    (this.#largeInputs ??= new Map()).set(turnId, input);
  }

  /** The large input kept for `turnId`, forgotten here (also when the turn ended without it). */
  takeLargeInput(turnId: string): readonly UserInput[] | undefined {
    const input = this.#largeInputs?.get(turnId);
    this.#largeInputs?.delete(turnId);
    return input;
  }

  findTurn(turnId: string): Turn | undefined {
    return this.turns[this.#indexOf(turnId)];
  }

  /** Where `turnId` is in the mirror, searched from the newest (the turn a live event is about); -1 if absent. */
  #indexOf(turnId: string): number {
    let i = this.turns.length - 1;
    while (i >= 0 && this.turns[i]!.id !== turnId) i -= 1;
    return i;
  }
}
