// One 32-bit cell shared by the host and a thread's actor, so the host can tell, without a
// round trip to the worker, that the actor will never write its rollout again. That is what
// lets an unload release the writer lock and announce `thread/closed` at once for an idle
// thread, while the actor closes its file in the background.
//
//            worker: a command starts            host: tryFence()
//   QUIET ───────────────────────────> ACTIVE       QUIET ──────────> FENCED (final)
//     ^   worker: it ended, nothing owed  │          ACTIVE: tryFence() fails; the host waits
//     └───────────────────────────────────┘                  for the actor's close instead
//
// The host fences only from QUIET, with compare-and-swap, so it never fences an actor that is
// in a command or owes lines; a worker that finds FENCED writes nothing more (the appender
// checks before every write).

const QUIET = 0;
const ACTIVE = 1;
const FENCED = 2;

/** Both sides' view of one actor's write fence. */
export class WriteFence {
  readonly #cell: Int32Array;

  constructor(buffer: SharedArrayBuffer) {
    this.#cell = new Int32Array(buffer, 0, 1);
  }

  /** The memory to send with the actor's init (structured clone shares it). */
  static allocate(): SharedArrayBuffer {
    return new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
  }

  /** Worker: a command that may write begins. */
  enter(): void {
    Atomics.compareExchange(this.#cell, 0, QUIET, ACTIVE);
  }

  /** Worker: the command ended and nothing is owed to the rollout; the host may fence. */
  leave(): void {
    Atomics.compareExchange(this.#cell, 0, ACTIVE, QUIET);
  }

  /** Host: true when the actor was quiet and now never writes again. */
  tryFence(): boolean {
    return Atomics.compareExchange(this.#cell, 0, QUIET, FENCED) === QUIET;
  }

  get fenced(): boolean {
    return Atomics.load(this.#cell, 0) === FENCED;
  }
}
