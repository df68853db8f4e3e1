// The one place where the main thread's ordering across event-loop iterations is decided.
// Code that must run "at the end of this task", "after this iteration's output has been
// written" or "in an iteration of its own" says so by calling one of these, instead of relying
// on which setImmediate or microtask happened to be queued first.
//
// End of the iteration (`atIterationEnd`, `afterOutputFlushed`): one immediate runs, in order,
// the output flushers (output-flusher.ts uncorks what the iteration wrote), then the callbacks
// that must come after that output has left. The fenced close of an unloaded thread is one
// (pool/close-batcher.ts): a worker woken while `thread/closed` is being written competes with
// the clients reading it for the cores, so the close is posted only once it is out
// (test/unit/main/pool/fenced-close-order.test.ts fails if it is not).
//
// An iteration of its own (`inOwnIteration`, `ownIteration`): background work on the main thread
// that must not hold requests up runs one step per iteration, so input that arrives between two
// steps is read and answered between them. setImmediate alone does not give that: Node runs
// every immediate queued before its check phase back to back, so two steps queued in the same
// iteration (Piscina announces both of its workers at once; the pool's start and the host's
// warm-up begin together) ran as one long task. Here each step queues the next only once it
// has run, and an immediate queued from the check phase waits for the next iteration, after
// its poll for I/O.

// ---- end of this task ----

/**
 * Runs `callback` once the synchronous work in progress is done, before any further input is
 * read: work that many callers in one task may ask for (a connection closing unsubscribes from
 * many threads) runs once, and what it changes is seen by the next request. It must not throw.
 */
export function atEndOfTask(callback: () => void): void {
  queueMicrotask(callback);
}

// ---- end of the iteration ----

const flushers = new Set<() => void>();
let afterFlush: Array<() => void> = [];
let iterationEndQueued = false;
/** Output still to be written in later iterations (staggered-output.ts): afterFlush waits for it. */
let outputHolds = 0;

/** Runs `flush` once at the end of this iteration, before every `afterOutputFlushed` callback. It must not throw. */
export function atIterationEnd(flush: () => void): void {
  flushers.add(flush);
  queueIterationEnd();
}

/** Runs `callback` at the end of this iteration, once its output has been flushed. It must not throw. */
export function afterOutputFlushed(callback: () => void): void {
  afterFlush.push(callback);
  queueIterationEnd();
}

/** Resolves at the end of this iteration, once its output has been flushed. */
export function outputFlushed(): Promise<void> {
  return new Promise((resolve) => afterOutputFlushed(resolve));
}

function queueIterationEnd(): void {
  if (iterationEndQueued) return;
  iterationEndQueued = true;
  setImmediate(runIterationEnd);
}

// What is queued while this runs (a write made by a callback) belongs to the next iteration:
// an immediate queued from the check phase runs after the next poll.
function runIterationEnd(): void {
  iterationEndQueued = false;
  const flushing = [...flushers];
  flushers.clear();
  const callbacks = outputHolds === 0 ? afterFlush : [];
  if (outputHolds === 0) afterFlush = [];
  for (const flush of flushing) flush();
  for (const callback of callbacks) callback();
}

/**
 * Output this iteration started will be written in later ones (staggered-output.ts): the
 * `afterOutputFlushed` callbacks wait until every hold is released, since their output is not
 * out before that.
 */
export function holdAfterFlush(): void {
  outputHolds += 1;
}

/** Releases a hold; with none left, the waiting callbacks run at the end of this iteration. */
export function releaseAfterFlush(): void {
  outputHolds -= 1;
  if (outputHolds === 0 && afterFlush.length > 0) queueIterationEnd();
}

// ---- iterations of their own ----

const steps: Array<() => void> = [];
let stepScheduled = false;

/** Runs `step` in an event-loop iteration of its own, after the steps queued before it. It must not throw. */
export function inOwnIteration(step: () => void): void {
  steps.push(step);
  scheduleStep();
}

/** Resolves in an event-loop iteration of its own, after the steps queued before it. */
export function ownIteration(): Promise<void> {
  return new Promise((resolve) => inOwnIteration(resolve));
}

/**
 * Resolves at the next check phase, whatever else is queued: called from an immediate (or a
 * promise it settled), that is the next iteration's, after its poll for I/O.
 */
export function nextIteration(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function scheduleStep(): void {
  if (stepScheduled || steps.length === 0) return;
  stepScheduled = true;
  setImmediate(runOneStep);
}

function runOneStep(): void {
  stepScheduled = false;
  const step = steps.shift()!;
  try {
    step();
  } finally {
    scheduleStep();
  }
}
