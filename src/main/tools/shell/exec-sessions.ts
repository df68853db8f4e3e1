// The host's unified-exec sessions, by thread, then by session id: what `write_stdin` finds.
// A thread keeps at most the reference's 64; opening one more ends the one it can spare best
// (an ended one first, else the least recently used, never one of the 8 used last), as the
// reference prunes. A thread's sessions end with it (unload), and all of them at shutdown.
import type { ExecSession } from './exec-session.js';

/** The reference's `MAX_UNIFIED_EXEC_PROCESSES`. */
export const MAX_SESSIONS_PER_THREAD = 64;
/** The reference keeps this many of the most recently used sessions out of pruning. */
const PROTECTED_RECENT = 8;

export class ExecSessions {
  readonly #byThread = new Map<string, Map<number, ExecSession>>();

  /** Registers `session`; returns the one pruned to make room for it, already ended. */
  add(session: ExecSession): ExecSession | null {
    let sessions = this.#byThread.get(session.threadId);
    if (sessions === undefined) this.#byThread.set(session.threadId, (sessions = new Map()));
    const pruned = sessions.size >= MAX_SESSIONS_PER_THREAD ? spareOf([...sessions.values()]) : null;
    if (pruned !== null) {
      sessions.delete(pruned.id);
      pruned.kill();
    }
    sessions.set(session.id, session);
    return pruned;
  }

  get(threadId: string, id: number): ExecSession | undefined {
    return this.#byThread.get(threadId)?.get(id);
  }

  /** The session is done with: its id is unknown from now on. */
  remove(session: ExecSession): void {
    const sessions = this.#byThread.get(session.threadId);
    if (sessions?.get(session.id) !== session) return;
    sessions.delete(session.id);
    if (sessions.size === 0) this.#byThread.delete(session.threadId);
  }

  /** The thread unloads: every process it left running is ended. */
  endThread(threadId: string): void {
    const sessions = this.#byThread.get(threadId);
    this.#byThread.delete(threadId);
    for (const session of sessions?.values() ?? []) session.kill();
  }

  /** Shutdown. */
  endAll(): void {
    for (const threadId of [...this.#byThread.keys()]) this.endThread(threadId);
  }

  /** Sessions alive or unread, for a thread (tests and status). */
  countOf(threadId: string): number {
    return this.#byThread.get(threadId)?.size ?? 0;
  }
}

function spareOf(sessions: ExecSession[]): ExecSession | null {
  const byRecency = [...sessions].sort((a, b) => b.lastUsedMs - a.lastUsedMs);
  const candidates = byRecency.slice(PROTECTED_RECENT).reverse();
  return candidates.find((session) => session.ended) ?? candidates[0] ?? null;
}
