// When an idle thread is due to unload, as the reference computes it
// (`UnloadingState::unloading_target`): only while it has no subscribers AND no running
// turn, at `delay` after the later of the two moments those became true.

/** The inputs of the rule, read from a loaded thread. */
export interface UnloadInputs {
  subscriberCount: number;
  turnRunning: boolean;
  /** When the subscriber count last dropped to zero (ms). */
  noSubscribersSince: number;
  /** When the thread last stopped running a turn (ms). */
  inactiveSince: number;
}

/** The instant (ms) the thread becomes due, or null while it must stay loaded. */
export function unloadDueAt(inputs: UnloadInputs, delaySecs: number | null): number | null {
  if (delaySecs === null || inputs.subscriberCount > 0 || inputs.turnRunning) return null;
  return Math.max(inputs.noSubscribersSince, inputs.inactiveSince) + delaySecs * 1000;
}
