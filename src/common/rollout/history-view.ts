// How a thread's recorded history is shown. A legacy rollout keeps no item ids or item times
// (its `user_message`/`agent_message` events carry neither), so the reference numbers the items
// `item-1`, `item-2`, … across the whole thread and shows null times, whatever the live
// notifications said; a paginated rollout keeps both. Every history view (thread/read,
// thread/resume, thread/turns/list) goes through here, loaded or not, so they agree.
import type { Turn } from '../wire-types.js';
import type { HistoryMode } from './rollout-reader.js';

/** The turns at `indices` as the history shows them (above), without viewing the others. */
export function turnsView(mode: HistoryMode, turns: readonly Turn[], indices: readonly number[]): Turn[] {
  if (mode === 'paginated') return indices.map((i) => turns[i]!);
  // Legacy item numbers run across the thread: a turn's first is one past the items before it.
  const before = new Array<number>(turns.length);
  let n = 0;
  turns.forEach((turn, i) => {
    before[i] = n;
    n += turn.items.length;
  });
  return indices.map((i) => {
    let at = before[i]!;
    return { ...turns[i]!, items: turns[i]!.items.map((item) => ({ ...item, id: `item-${++at}`, startedAtMs: null, completedAtMs: null })) };
  });
}

/** Every turn (or those at `indices`) with all its items, as the history records them (thread/read, thread/resume). */
export function fullTurns(mode: HistoryMode, turns: readonly Turn[], indices: readonly number[] = turns.map((_, i) => i)): Turn[] {
  return turnsView(mode, turns, indices).map((turn) => ({ ...turn, itemsView: 'full' as const }));
}
