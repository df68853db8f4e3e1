// The handoff race's kill timer, on either store: every --kill-every, a random slot among those
// still racing, while at least two are (a lone process has nobody to hand off to: killing it
// would only measure restarts). Ends when the race does (the signal), or when the caller stops.
import { setTimeout as delay } from 'node:timers/promises';
import type { HandoffSlot } from './handoff-slot.js';

export async function* killVictims(slots: readonly HandoffSlot[], killEveryMs: number, random: () => number, signal: AbortSignal): AsyncGenerator<HandoffSlot> {
  while (!signal.aborted) {
    try {
      await delay(killEveryMs, undefined, { signal });
    } catch {
      return; // the race ended
    }
    const live = slots.filter((s) => s.pid !== undefined && Number.isNaN(s.finishedAt));
    if (live.length < 2) return;
    yield live[Math.floor(random() * live.length)]!;
  }
}
