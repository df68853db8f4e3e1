// Background work on the main thread that must not hold requests up runs here, one step per
// turn of the event loop, so input that arrives between two steps is read and answered between
// them. setImmediate alone does not give that: Node runs every immediate queued before its check
// phase back to back, so two steps queued in the same turn (Piscina announces both of its
// workers at once; the pool's start and the host's warm-up begin together) ran as one long
// task. Here each step queues the next only once it has run, and an immediate queued from the
// check phase waits for the next iteration, after its poll for I/O.
const steps: Array<() => void> = [];
let scheduled = false;

/** Runs `step` in an event-loop turn of its own, after the steps queued before it. It must not throw. */
export function inOwnTurn(step: () => void): void {
  steps.push(step);
  schedule();
}

/** Resolves in an event-loop turn of its own, after the steps queued before it. */
export function ownTurn(): Promise<void> {
  return new Promise((resolve) => inOwnTurn(resolve));
}

function schedule(): void {
  if (scheduled || steps.length === 0) return;
  scheduled = true;
  setImmediate(runOne);
}

function runOne(): void {
  scheduled = false;
  const step = steps.shift()!;
  try {
    step();
  } finally {
    schedule();
  }
}
