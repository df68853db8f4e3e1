// One `exec_command` process as the reference's unified exec keeps it: a session the model
// knows by its id, whose output piles up between the calls that read it (`exec_command` first,
// then each `write_stdin`), and which may outlive the call and the turn that started it. A call
// waits for output until its yield time passes or the process ends, whichever comes first.
import type { CommandExecutionItem } from '../../../common/wire-types.js';
import type { CommandRefusal, CommandResult } from '../exec/command-runner.js';
import type { ProcessControl } from '../exec/running-command.js';

// The reference's `UNIFIED_EXEC_OUTPUT_MAX_BYTES`: what one read may return; past it the first
// and last halves are kept.
export const SESSION_OUTPUT_MAX_BYTES = 1024 * 1024;

/** The process's end, once its output is all read. */
export type SessionEnd = { readonly result: CommandResult | CommandRefusal; readonly durationMs: number };

/** What one read of a session gives: the output since the last read, and the end if it came. */
export interface SessionRead {
  readonly output: Buffer;
  readonly end: SessionEnd | null;
}

export class ExecSession {
  /** The item as started: what the model's call made of the command. */
  readonly item: CommandExecutionItem;
  /** Recency, for the reference's pruning of a thread's oldest sessions. */
  lastUsedMs: number;
  #control: ProcessControl | null = null;
  readonly #abort = new AbortController();
  #head: Buffer[] = [];
  #headBytes = 0;
  #tail: Buffer[] = [];
  #tailBytes = 0;
  /** Bytes dropped between the head and the tail since the last read. */
  #omitted = 0;
  #end: SessionEnd | null = null;
  readonly #ended: Promise<void>;
  #markEnded!: () => void;
  /** Calls reading it now: its end is theirs to report (the order of the reference's events). */
  #readers = 0;
  #reported = false;

  constructor(
    readonly id: number,
    readonly threadId: string,
    /** The turn whose call started it: its item belongs there, whenever it ends. */
    readonly turnId: string,
    item: CommandExecutionItem,
    /**
     * The model asked for `tty`: the command runs on a terminal, which gets every write (its line
     * discipline makes Ctrl-C and Ctrl-D of the bytes themselves); without one there is no stdin.
     */
    readonly tty: boolean,
    nowMs: number,
    /** The item once the process ended (what streamed is the command's own). */
    readonly finishedItem: (end: SessionEnd) => CommandExecutionItem,
  ) {
    this.item = item;
    this.lastUsedMs = nowMs;
    this.#ended = new Promise((resolve) => (this.#markEnded = resolve));
  }

  /** Ends the process (its whole group): an unload, a shutdown, a prune. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  get ended(): boolean {
    return this.#end !== null;
  }

  get end(): SessionEnd | null {
    return this.#end;
  }

  /** The runner's `onStarted`. */
  readonly started = (control: ProcessControl): void => {
    this.#control = control;
  };

  /** The runner's `onOutput` (after the item's live stream took its copy). */
  readonly append = (chunk: Buffer): void => {
    if (this.#headBytes < SESSION_OUTPUT_MAX_BYTES / 2) {
      this.#head.push(chunk);
      this.#headBytes += chunk.length;
      return;
    }
    this.#tail.push(chunk);
    this.#tailBytes += chunk.length;
    while (this.#tail.length > 1 && this.#tailBytes - this.#tail[0]!.length >= SESSION_OUTPUT_MAX_BYTES / 2) {
      const dropped = this.#tail.shift()!.length;
      this.#tailBytes -= dropped;
      this.#omitted += dropped;
    }
  };

  /** The run's end: called once. Returns true when no call is reading, so the end is the caller's to report. */
  finish(end: SessionEnd): boolean {
    this.#end = end;
    this.#markEnded();
    return this.#readers === 0 && this.#claimReport();
  }

  /**
   * Waits until `deadlineMs` (performance time) or the end, then takes the output since the
   * last read; 'interrupted' when `signal` aborts first (the output stays for the next read).
   */
  async read(deadlineMs: number, now: () => number, signal: AbortSignal): Promise<SessionRead | 'interrupted'> {
    this.#readers += 1;
    try {
      if (this.#end === null && !signal.aborted) await untilFirst(this.#ended, deadlineMs - now(), signal);
      if (signal.aborted) return 'interrupted';
      return { output: this.#drain(), end: this.#end };
    } finally {
      this.#readers -= 1;
    }
  }

  /**
   * A call is at the session (writing, then reading): an end meanwhile is the call's to report,
   * after what the call tells first. Call the returned function when the call is done.
   */
  engage(): () => void {
    this.#readers += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#readers -= 1;
    };
  }

  /** True once, for whoever reports the end (a reader that saw it, or the end itself). */
  claimReport(): boolean {
    return this.#end !== null && this.#claimReport();
  }

  /** Writes to the terminal; false when there is none (the process ended, or it never had one). */
  async write(text: string): Promise<boolean> {
    if (!this.tty || this.#control === null || this.#end !== null) return false;
    return this.#control.writeStdin(Buffer.from(text)).then(
      () => true,
      () => false,
    );
  }

  /** Ctrl-C without a terminal: SIGINT to the process group, as the reference sends it. */
  interrupt(): void {
    this.#control?.interrupt();
  }

  kill(): void {
    this.#abort.abort();
  }

  #claimReport(): boolean {
    if (this.#reported) return false;
    this.#reported = true;
    return true;
  }

  #drain(): Buffer {
    const marker = this.#omitted === 0 ? [] : [Buffer.from(`\n... ${this.#omitted} bytes omitted ...\n`)];
    const parts = [...this.#head, ...marker, ...this.#tail];
    this.#omitted = 0;
    this.#head = [];
    this.#headBytes = 0;
    this.#tail = [];
    this.#tailBytes = 0;
    return Buffer.concat(parts);
  }
}

/** Resolves at the first of: `ended`, `ms` elapsed, `signal` aborted. */
function untilFirst(ended: Promise<void>, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, ms));
    signal.addEventListener('abort', done, { once: true });
    void ended.then(done);
  });
}
