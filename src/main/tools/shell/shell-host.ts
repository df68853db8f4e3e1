// The host's side of the model's commands (main thread): the one CommandRunner every command
// goes through, what each turn waits for (so an interrupt or the turn's end cuts it short: a
// user's shell command ends, a model's call stops waiting), the unified-exec sessions left
// running for the model (they end with their thread's unload, or at shutdown), and the
// commands a thread's user approved for the rest of the session.
import type { CommandRefusal, CommandRequest, CommandResult, CommandRunner } from '../exec/command-runner.js';
import type { TurnDiffTracker } from '../patch/turn-diff-tracker.js';
import { CommandExecSessions } from './command-exec-sessions.js';
import type { ExecSession } from './exec-session.js';
import { ExecSessions } from './exec-sessions.js';

export class ShellHost {
  /** Made on the first command: the runner brings child_process, which a start does not need. */
  #runner: Promise<CommandRunner> | null = null;
  /** What turns wait for (running commands, session reads), by thread, then by turn. */
  readonly #running = new Map<string, Map<string, Set<AbortController>>>();
  /**
   * Commands approved "for session" (the argv as one line), by the loaded thread: they go with
   * it when it unloads, as the reference's session does, and a resume starts with none.
   */
  readonly #approved = new WeakMap<object, Set<string>>();
  readonly #usedSessionIds = new Set<number>();
  /** Each running turn's diff of its patches (turn/diff/updated), by thread and turn. */
  readonly #turnDiffs = new Map<string, TurnDiffTracker>();
  /** The clients' own commands (command/exec), on the same runner. */
  readonly exec = new CommandExecSessions(() => this.#runnerNow());
  /** The model's commands, which may outlive their call and their turn. */
  readonly sessions = new ExecSessions();

  #runnerNow(): Promise<CommandRunner> {
    return (this.#runner ??= import('../exec/command-runner.js').then(({ CommandRunner: Runner }) => new Runner()));
  }

  /** Runs one command of `threadId`'s turn `turnId`; it ends with the turn. */
  run(threadId: string, turnId: string, request: Omit<CommandRequest, 'signal'>): Promise<CommandResult | CommandRefusal> {
    // An interrupt that came while the runner loaded refuses the command.
    return this.waitInTurn(threadId, turnId, async (signal) => (await this.#runnerNow()).run({ ...request, signal }));
  }

  /**
   * Starts a session's process: it is no turn's, so only the session's own end (an unload, a
   * shutdown, a prune) stops it. Resolves at the process's end.
   */
  async runSession(session: ExecSession, request: Omit<CommandRequest, 'signal' | 'onStarted'>): Promise<CommandResult | CommandRefusal> {
    return (await this.#runnerNow()).run({ ...request, signal: session.signal, onStarted: session.started });
  }

  /** Runs `work` for `threadId`'s turn `turnId`; its signal aborts when the turn is interrupted or ends. */
  async waitInTurn<T>(threadId: string, turnId: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const abort = new AbortController();
    let turns = this.#running.get(threadId);
    if (turns === undefined) this.#running.set(threadId, (turns = new Map()));
    let mine = turns.get(turnId);
    if (mine === undefined) turns.set(turnId, (mine = new Set()));
    mine.add(abort);
    try {
      return await work(abort.signal);
    } finally {
      mine.delete(abort);
      if (mine.size === 0) turns.delete(turnId);
      if (turns.size === 0) this.#running.delete(threadId);
    }
  }

  /** The turn was interrupted or ended (`turnId` null: every turn of the thread): what it waits for stops. */
  cancelTurn(threadId: string, turnId: string | null): void {
    const turns = this.#running.get(threadId);
    if (turns === undefined) return;
    for (const [id, commands] of turns) {
      if (turnId !== null && id !== turnId) continue;
      for (const abort of commands) abort.abort();
    }
  }

  /** The thread unloads: its sessions' processes end with it. */
  endThread(threadId: string): void {
    this.cancelTurn(threadId, null);
    this.sessions.endThread(threadId);
  }

  /** The diff tracker of `threadId`'s turn `turnId`, made on its first patch. */
  turnDiff(threadId: string, turnId: string, make: () => TurnDiffTracker): TurnDiffTracker {
    const key = `${threadId}/${turnId}`;
    let tracker = this.#turnDiffs.get(key);
    if (tracker === undefined) this.#turnDiffs.set(key, (tracker = make()));
    return tracker;
  }

  /** The turn ended: its tracker is dropped, and returned for the end's last diff. */
  takeTurnDiff(threadId: string, turnId: string): TurnDiffTracker | undefined {
    const key = `${threadId}/${turnId}`;
    const tracker = this.#turnDiffs.get(key);
    this.#turnDiffs.delete(key);
    return tracker;
  }

  approveForSession(thread: object, command: string): void {
    let approved = this.#approved.get(thread);
    if (approved === undefined) this.#approved.set(thread, (approved = new Set()));
    approved.add(command);
  }

  approvedForSession(thread: object, command: string): boolean {
    return this.#approved.get(thread)?.has(command) ?? false;
  }

  /**
   * A process id for the item, as the reference's unified-exec session ids look (a decimal
   * number, unique among this host's commands).
   */
  nextSessionId(): number {
    for (;;) {
      const id = 1000 + Math.floor(Math.random() * 99_000);
      if (!this.#usedSessionIds.has(id)) {
        this.#usedSessionIds.add(id);
        return id;
      }
    }
  }

  /** Shutdown: every process group is killed (none was, if no command ever ran). */
  async killAll(): Promise<void> {
    this.exec.killAll();
    this.sessions.endAll();
    if (this.#runner !== null) await (await this.#runner).killAll();
  }
}
