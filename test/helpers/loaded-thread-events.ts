// Unit tests bring a LoadedThread into a state through the same event-named methods the host
// calls (loaded-thread.ts has no public fields to set), with facts that do not matter to them.
import type { ThreadSettings } from '../../src/common/actor-messages.js';
import type { HistoryMode } from '../../src/common/rollout/rollout-reader.js';
import type { Turn, TurnId } from '../../src/common/wire-types.js';
import type { EncodedJson } from '../../src/main/protocol/encoded-json.js';
import type { LoadedThread } from '../../src/main/threads/loaded-thread.js';
import type { ThreadIdentity } from '../../src/main/threads/thread-facts.js';

const IDENTITY: ThreadIdentity = { createdAtMs: 0, path: null, history: null, ephemeral: true, originator: 'test', cliVersion: '0.0.0', source: 'vscode' };
const SETTINGS = {} as ThreadSettings;

/** Describes `thread` as a load does, with the given history format and unload delay. */
export function describeThread(thread: LoadedThread, options: { historyMode?: HistoryMode; unloadDelaySecs?: number | null } = {}): void {
  thread.described({ identity: IDENTITY, settings: SETTINGS, historyMode: options.historyMode ?? 'paginated', unloadDelaySecs: options.unloadDelaySecs ?? null });
}

/** Answers a cold resume of `thread` whose worker serialized its first `count` turns as `json`. */
export function resumeWithHistoryJson(thread: LoadedThread, resumedHistoryJson: { count: number; json: EncodedJson }): void {
  thread.resumed({ identity: IDENTITY, settings: SETTINGS, preview: '', updatedAtMs: 0, lastTokenUsage: null, resumedHistoryJson });
}

/** An in-progress turn with no items, as turn/start makes it. */
export function newTurn(id: string): Turn {
  return { id: id as TurnId, rootTurnId: id as TurnId, items: [], itemsView: 'notLoaded', status: 'inProgress', error: null, startedAt: null, completedAt: null, durationMs: null };
}

/** turn/start accepted `turn` (a new in-progress one named `turn` when given a string). */
export function acceptTurn(thread: LoadedThread, turn: Turn | string, now = 0, largeInput: Parameters<LoadedThread['turnAccepted']>[4] = null): void {
  thread.turnAccepted(typeof turn === 'string' ? newTurn(turn) : turn, SETTINGS, now, () => '', largeInput);
}

/** The actor reported `turnId` completed at `now`. */
export function completeTurn(thread: LoadedThread, turnId: string, now: number): void {
  thread.turnEnded(turnId, { status: 'completed', error: null, completedAtMs: now, durationMs: 0 }, now);
}
