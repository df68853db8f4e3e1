// The main thread's record of one loaded thread: lifecycle, subscribers, the transcript of its
// turns (so reads are answered from memory, never by asking the worker), its writer lock
// and where its actor lives. Its one owner: the state changes only through its event-named
// methods (docs/architecture.md, "What state lives where").
import type { ThreadSettings } from '../../common/actor-messages.js';
import type { TokenUsageSnapshot } from '../../common/token-usage.js';
import type { ConnectionId } from '../connections.js';
import type { WriterLock } from '../store/writer-lock-backend.js';
import type { ThreadLifecycle, UnloadReason } from './lifecycle.js';
import { transition } from './lifecycle.js';
import { Mailbox } from '../../common/mailbox.js';
import type { HistorySource } from '../../common/rollout/history-pages.js';
import type { HistoryMode } from '../../common/rollout/rollout-reader.js';
import type { Turn, UserInput } from '../../common/wire-types.js';
import { TurnTranscript } from './turn-transcript.js';
import { IDLE, type LoadedStatus, type ResumedFacts, type ThreadDescription, type ThreadIdentity, type TurnEnd } from './thread-facts.js';
import type { WriteFence } from '../../common/write-fence.js';
import type { EncodedJson } from '../protocol/encoded-json.js';
import type { ThreadId } from '../../common/thread-id.js';

let nextGeneration = 1;

/**
 * One loaded thread, owned by the main thread. Its state changes only through the methods
 * below, each named for what happened (a turn was accepted, an item completed, the lock was
 * taken, ...); everything else reads it through getters. The actor owns the rollout and the
 * model conversation; this is the host's transcript of them, so reads never ask the worker. The
 * turns and their items are kept by TurnTranscript (turn-transcript.ts).
 */
export class LoadedThread extends TurnTranscript {
  /** Distinguishes incarnations of the same id, so a late unload never removes a newer one. */
  readonly generation = nextGeneration++;
  // Created on first use: most threads never queue a lifecycle request (a Mailbox and its
  // settled promise are each a visible share of an idle thread; bench case `scale`).
  #mailbox: Mailbox | null = null;
  readonly #subscribers = new Set<ConnectionId>();
  #lifecycle: ThreadLifecycle;
  #identity: ThreadIdentity | null = null;
  #settings: ThreadSettings | null = null;
  #status: LoadedStatus = IDLE;
  /** Approvals the running turn waits for: while there are any, its status says `waitingOnApproval`. */
  #approvalsWaiting = 0;
  #historyMode: HistoryMode = 'paginated';
  #resumedHistoryJson: { count: number; json: EncodedJson } | null = null;
  #transcriptFill: Promise<void> | null = null;
  #preview = '';
  #updatedAtMs = 0;
  #materialized = false;
  #lastTokenUsage: TokenUsageSnapshot | null = null;
  #writerLock: WriterLock | null = null;
  #unloadDelaySecs: number | null = null;
  #fence: WriteFence | null = null;
  #actorPlacement: Promise<void> | null = null;
  #pendingTurns = 0;
  #runningTurnId: string | null = null;
  /** Compaction turns (thread/compact/start), which no input can join; created on first use. */
  #compactionTurnIds: Set<string> | null = null;
  /** Turns the host runs without the actor (thread/shellCommand), which no input can join either. */
  #hostTurnIds: Set<string> | null = null;
  #noSubscribersSince: number;
  #inactiveSince: number;

  constructor(
    readonly id: ThreadId,
    now: number,
  ) {
    super();
    this.#lifecycle = { kind: 'loading', since: now };
    this.#noSubscribersSince = now;
    this.#inactiveSince = now;
  }

  // ---- reads ----

  /** Lifecycle requests about this thread (resume, unload) run here one at a time. */
  get mailbox(): Mailbox {
    return (this.#mailbox ??= new Mailbox());
  }
  get subscribers(): ReadonlySet<ConnectionId> {
    return this.#subscribers;
  }
  get lifecycle(): ThreadLifecycle {
    return this.#lifecycle;
  }
  get identity(): ThreadIdentity | null {
    return this.#identity;
  }
  get settings(): ThreadSettings | null {
    return this.#settings;
  }
  get status(): LoadedStatus {
    return this.#status;
  }
  /** The rollout's history format; a resumed thread keeps its file's. */
  get historyMode(): HistoryMode {
    return this.#historyMode;
  }
  /**
   * The first `count` turns as fullTurns shows them, serialized by the pool worker that read
   * them at a cold resume (see full-history.ts); null when not resumed from disk here.
   */
  get resumedHistoryJson(): { count: number; json: EncodedJson } | null {
    return this.#resumedHistoryJson;
  }
  /**
   * A cold resume's turns still being decoded into `turns`, a slice per event-loop iteration
   * (transcript-fill.ts); requests that read or change the turns wait for it. Null when filled.
   */
  get transcriptFill(): Promise<void> | null {
    return this.#transcriptFill;
  }
  get preview(): string {
    return this.#preview;
  }
  get updatedAtMs(): number {
    return this.#updatedAtMs;
  }
  /** True once the rollout file exists (the first turn has started). */
  get materialized(): boolean {
    return this.#materialized;
  }
  get lastTokenUsage(): TokenUsageSnapshot | null {
    return this.#lastTokenUsage;
  }
  /** The lock that makes this process the thread's one writer; null for ephemeral threads. */
  get writerLock(): WriterLock | null {
    return this.#writerLock;
  }
  /** Idle seconds before unload for this thread (config, or the thread's `config` map); null = never. */
  get unloadDelaySecs(): number | null {
    return this.#unloadDelaySecs;
  }
  /** Shared with the actor: tells the unload whether it may skip waiting for the actor's close. */
  get fence(): WriteFence | null {
    return this.#fence;
  }
  /**
   * A new thread's actor being placed in the pool: thread/start answers once the writer lock is
   * held, and commands for the actor wait for this (actor-link.ts), as does the unload. Never
   * rejects; null once the actor is placed (or its placement failed).
   */
  get actorPlacement(): Promise<void> | null {
    return this.#actorPlacement;
  }
  /** Turns accepted but not finished, the running one included. */
  get pendingTurns(): number {
    return this.#pendingTurns;
  }
  get runningTurnId(): string | null {
    return this.#runningTurnId;
  }
  get noSubscribersSince(): number {
    return this.#noSubscribersSince;
  }
  get inactiveSince(): number {
    return this.#inactiveSince;
  }
  /** Loaded (or unloading) with its identity known: reads are answered from this transcript, not the disk. */
  get readsFromTranscript(): boolean {
    return (this.#lifecycle.kind === 'loaded' || this.#lifecycle.kind === 'unloading') && this.#identity !== null;
  }
  get turnRunning(): boolean {
    return this.#pendingTurns > 0;
  }
  /** The newest turn still in progress (running, or accepted and not begun): where steered input goes. */
  get activeTurn(): Turn | null {
    if (this.#pendingTurns === 0) return null;
    for (let i = this.turns.length - 1; i >= 0; i -= 1) if (this.turns[i]!.status === 'inProgress') return this.turns[i]!;
    return null;
  }
  /** Whether `turnId` is a compaction's turn. */
  isCompaction(turnId: string): boolean {
    return this.#compactionTurnIds?.has(turnId) ?? false;
  }

  /** Whether input can join `turnId` (a compaction's or a host-run turn takes none). */
  isJoinable(turnId: string): boolean {
    return !this.isCompaction(turnId) && !(this.#hostTurnIds?.has(turnId) ?? false);
  }

  /** The transcript as a history source, for paged reads and cursors. */
  historySource(): HistorySource {
    return { threadId: this.id, mode: this.#historyMode, turns: this.turns, turnOrdinal: (i) => this.turnOrdinal(i), itemOrdinal: (i, j) => this.itemOrdinal(i, j) };
  }

  // ---- load and lifecycle ----

  /** The writer lock was taken for this load. */
  writerLockTaken(lock: WriterLock): void {
    this.#writerLock = lock;
  }

  /** The unload gives the lock back: returns it (null when none was held), no longer held here. */
  writerLockReleased(): WriterLock | null {
    const lock = this.#writerLock;
    this.#writerLock = null;
    return lock;
  }

  /** The write fence shared with the actor about to be created. */
  fenceShared(fence: WriteFence): void {
    this.#fence = fence;
  }

  /** A new thread's actor is being placed; `placement` never rejects and settles once it is done. */
  actorPlacementStarted(placement: Promise<void>): void {
    this.#actorPlacement = placement;
  }

  /** The actor's placement finished (placed, or failed). */
  actorPlacementSettled(): void {
    this.#actorPlacement = null;
  }

  /** The load knows who the thread is and how it runs. */
  described(description: ThreadDescription): void {
    this.#identity = description.identity;
    this.#settings = description.settings;
    this.#historyMode = description.historyMode;
    this.#unloadDelaySecs = description.unloadDelaySecs;
  }

  /** A new thread was created at `now`. */
  created(now: number): void {
    this.#updatedAtMs = now;
  }

  /** A resume's actor is up: the rollout exists; `facts` is what it read (null when it read nothing). */
  resumed(facts: ResumedFacts | null): void {
    if (facts !== null) {
      this.#identity = facts.identity;
      this.#settings = facts.settings;
      this.#preview = facts.preview;
      this.#updatedAtMs = facts.updatedAtMs;
      this.#lastTokenUsage = facts.lastTokenUsage;
      this.#resumedHistoryJson = facts.resumedHistoryJson;
    }
    this.#materialized = true;
    this.#status = IDLE;
  }

  /** A cold resume's turns are being decoded into the transcript; `fill` settles when they are all in. */
  transcriptFillStarted(fill: Promise<void>): void {
    const settled: Promise<void> = fill.finally(() => {
      if (this.#transcriptFill === settled) this.#transcriptFill = null;
    });
    this.#transcriptFill = settled;
  }

  /** Published: listed, answered from this transcript. */
  published(now: number): void {
    this.#moveTo({ kind: 'loaded', since: now });
  }

  unloadStarted(reason: UnloadReason, now: number): void {
    this.#moveTo({ kind: 'unloading', reason, since: now });
  }

  unloaded(reason: UnloadReason): void {
    this.#moveTo({ kind: 'unloaded', reason });
  }

  /** Adds a subscriber; returns false when it was already subscribed. */
  subscribe(connection: ConnectionId): boolean {
    if (this.#subscribers.has(connection)) return false;
    this.#subscribers.add(connection);
    return true;
  }

  /** Removes a subscriber; returns false when it was not subscribed. */
  unsubscribe(connection: ConnectionId, now: number): boolean {
    if (!this.#subscribers.delete(connection)) return false;
    if (this.#subscribers.size === 0) this.#noSubscribersSince = now;
    return true;
  }

  #moveTo(next: ThreadLifecycle): void {
    this.#lifecycle = transition(this.#lifecycle, next);
  }

  // ---- a turn's start and end (its items: turn-transcript.ts), in the order their events come (turn-events.ts) ----

  /**
   * turn/start accepted `turn` (in progress, no items) with `settings`, which stick for later
   * turns. A thread with no preview yet takes `preview()`'s (an ephemeral one keeps none). A
   * large input is kept until the actor echoes it back.
   */
  turnAccepted(turn: Turn, settings: ThreadSettings, now: number, preview: () => string, largeInput: readonly UserInput[] | null): void {
    this.#settings = settings;
    this.appendAccepted(turn, largeInput);
    this.#pendingTurns += 1;
    this.#updatedAtMs = now;
    if (this.#preview === '' && !this.#identity?.ephemeral) this.#preview = preview();
  }

  /** thread/compact/start accepted `turn`: a turn like the others, with the thread's settings. */
  compactionAccepted(turn: Turn, now: number): void {
    (this.#compactionTurnIds ??= new Set()).add(turn.id);
    this.turnAccepted(turn, this.#settings!, now, () => '', null);
  }

  /** thread/shellCommand accepted `turn`, which the host runs itself, with the thread's settings. */
  hostTurnAccepted(turn: Turn, now: number): void {
    (this.#hostTurnIds ??= new Set()).add(turn.id);
    this.turnAccepted(turn, this.#settings!, now, () => '', null);
  }

  /** The actor started the turn; returns it, or undefined when the transcript does not have it. */
  turnStarted(turnId: string, startedAtMs: number, ordinal: number | null): Turn | undefined {
    const turn = this.findTurn(turnId);
    if (!turn) return undefined;
    turn.startedAt = Math.floor(startedAtMs / 1000);
    this.notePosition(turnId, ordinal);
    this.#runningTurnId = turnId;
    this.#status = { type: 'active', activeFlags: [] };
    return turn;
  }

  /** The running turn asks its client to approve something; true when that changed the status. */
  approvalAsked(): boolean {
    this.#approvalsWaiting += 1;
    return this.#setApprovalFlag();
  }

  /** An approval was answered (or cancelled); true when that changed the status. */
  approvalSettled(): boolean {
    this.#approvalsWaiting = Math.max(0, this.#approvalsWaiting - 1);
    return this.#setApprovalFlag();
  }

  #setApprovalFlag(): boolean {
    if (this.#status.type !== 'active') return false;
    const waiting = this.#approvalsWaiting > 0;
    if (this.#status.activeFlags.includes('waitingOnApproval') === waiting) return false;
    this.#status = { type: 'active', activeFlags: waiting ? ['waitingOnApproval'] : [] };
    return true;
  }

  /** The rollout file now exists. */
  rolloutMaterialized(): void {
    this.#materialized = true;
  }

  tokenUsageUpdated(usage: TokenUsageSnapshot): void {
    this.#lastTokenUsage = usage;
  }

  /**
   * The turn ended (reported by the actor, or failed here); returns it, or null when it was not
   * in progress (nothing changes then but the large input it kept, which is dropped).
   */
  turnEnded(turnId: string, end: TurnEnd, now: number): Turn | null {
    // A turn that ended before its input came back (it failed to start) keeps nothing.
    this.takeLargeInput(turnId);
    const turn = this.findTurn(turnId);
    if (!turn || turn.status !== 'inProgress') return null;
    turn.status = end.status;
    turn.error = end.error;
    turn.completedAt = Math.floor(end.completedAtMs / 1000);
    turn.startedAt ??= turn.completedAt;
    turn.durationMs = end.durationMs;
    this.#pendingTurns = Math.max(0, this.#pendingTurns - 1);
    if (this.#runningTurnId === turnId) this.#runningTurnId = null;
    this.#inactiveSince = now;
    this.#approvalsWaiting = 0;
    this.#status = end.status === 'failed' ? { type: 'systemError' } : this.#pendingTurns > 0 ? this.#status : IDLE;
    return turn;
  }

}
