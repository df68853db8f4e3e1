// The worker-side half of the pool: one ActorHost per worker thread, holding the actors
// placed on it and exposing `ActorHostApi` over comlink. Events go back to the main thread
// on their own port as plain objects; a cold resume's history comes back packed (packed-history.ts).
import type { MessagePort } from 'node:worker_threads';
import type { ActorEvent, ActorHostApi, CompactCommand, SteerCommand, ActorInit, PostedResumeState, PostedTurnCommand, ToolAnswer, UserShellCommand } from '../common/actor-messages.js';
import type { ToolCallItem } from '../common/wire-types.js';
import * as Comlink from 'comlink';
import { encodeLargeContent, receivedInput } from '../common/encoded-content.js';
import { packHistory } from '../common/packed-history.js';
import { systemClock } from '../common/clock.js';
import { ThreadActor } from './thread-actor.js';
import { readFaults, type Faults } from './faults.js';

export class ActorHost implements ActorHostApi {
  readonly #actors = new Map<string, ThreadActor>();
  readonly #events: MessagePort;
  readonly #faults: Faults;
  readonly #exit: () => void;
  #phase: 'serving' | 'retiring' = 'serving';

  /** `exit` ends this worker; it is called after `retire()` has answered. */
  constructor(events: MessagePort, exit: () => void) {
    this.#events = events;
    this.#faults = readFaults(process.env);
    this.#exit = exit;
  }

  async spawn(init: ActorInit): Promise<PostedResumeState | null> {
    if (this.#phase === 'retiring') throw new Error('this pool worker is retiring');
    if (this.#faults.failSpawn) throw new Error('injected fault: this pool worker cannot host actors');
    const actor = new ThreadActor(init, (event) => this.#emit(event), this.#faults, systemClock);
    this.#actors.set(init.threadId, actor);
    try {
      const state = await actor.load();
      if (state === null) return null;
      const { turns, positions, ...rest } = state;
      const posted: PostedResumeState = { ...rest, history: packHistory(state.historyMode, turns, positions) };
      // Every byte array here owns its buffer (packed-history.ts, resume-state.ts): moved, not copied.
      const buffers = [...posted.history.slices, ...(posted.fullTurnsJson === null ? [] : [posted.fullTurnsJson])].map((bytes) => bytes.buffer as ArrayBuffer);
      return Comlink.transfer(posted, buffers);
    } catch (error) {
      this.#actors.delete(init.threadId);
      throw error;
    }
  }

  async startTurn(threadId: string, command: PostedTurnCommand): Promise<void> {
    this.#require(threadId).startTurn({ ...command, input: receivedInput(command.input) });
  }

  async steerTurn(threadId: string, command: SteerCommand): Promise<void> {
    this.#require(threadId).steer(command);
  }

  async startCompaction(threadId: string, command: CompactCommand): Promise<void> {
    this.#require(threadId).startCompaction(command);
  }

  async interrupt(threadId: string, turnId: string): Promise<'interrupting' | 'notRunning'> {
    return this.#actors.get(threadId)?.interrupt(turnId) ?? 'notRunning';
  }

  async answerTool(threadId: string, answer: ToolAnswer): Promise<'answered' | 'late'> {
    return this.#actors.get(threadId)?.answerTool(answer) ?? 'late';
  }

  async recordItem(threadId: string, turnId: string, item: ToolCallItem): Promise<'recorded' | 'notFound'> {
    const actor = this.#actors.get(threadId);
    if (!actor) return 'notFound';
    actor.recordItem(turnId, item);
    return 'recorded';
  }

  async answerHostTools(threadId: string, turnId: string, tools: unknown[]): Promise<'answered' | 'late'> {
    return this.#actors.get(threadId)?.answerHostTools(turnId, tools) ?? 'late';
  }

  async recordUserShell(threadId: string, command: UserShellCommand): Promise<void> {
    this.#require(threadId).recordUserShell(command);
  }

  async revokeWriter(threadId: string, reason: string): Promise<'revoked' | 'notFound'> {
    const actor = this.#actors.get(threadId);
    if (!actor) return 'notFound';
    actor.revokeWriter(reason);
    return 'revoked';
  }

  async close(threadId: string): Promise<'closed' | 'notFound'> {
    const actor = this.#actors.get(threadId);
    if (!actor) return 'notFound';
    try {
      await actor.close();
    } finally {
      // A fenced close runs after the host forgot the thread, so a new incarnation may already
      // be registered here under the same id: remove only this one.
      if (this.#actors.get(threadId) === actor) this.#actors.delete(threadId);
    }
    return 'closed';
  }

  async closeMany(threadIds: string[]): Promise<Array<'closed' | 'notFound' | 'failed'>> {
    const outcomes = await Promise.allSettled(threadIds.map((threadId) => this.close(threadId)));
    return outcomes.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : 'failed'));
  }

  async ping(): Promise<number> {
    return this.#actors.size;
  }

  async retire(): Promise<'retiring' | 'busy'> {
    if (this.#actors.size > 0) return 'busy';
    this.#phase = 'retiring';
    // After the answer is on its way: the host then sees the port close.
    setImmediate(this.#exit);
    return 'retiring';
  }

  #require(threadId: string): ThreadActor {
    const actor = this.#actors.get(threadId);
    if (!actor) throw new Error(`no actor for thread ${threadId} on this worker`);
    return actor;
  }

  // Events are small; structured clone beats packing them (bench/codec.ts). A large user
  // input travels only serialized, encoded here, off the main thread, and transferred: the
  // main thread has the input itself (it sent it), so the item goes without it.
  #emit(event: ActorEvent): void {
    const contentJson = event.type === 'userItem' ? encodeLargeContent(event.item.content) : null;
    if (event.type === 'userItem' && contentJson !== null) {
      this.#events.postMessage({ ...event, item: { ...event.item, content: [] }, contentJson }, [contentJson.buffer as ArrayBuffer]);
    } else {
      this.#events.postMessage(event);
    }
  }
}
