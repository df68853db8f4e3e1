// The commands clients run with `command/exec` (main thread): each is connection-scoped, known
// by the client's `processId` (or an internal id), and ends when its connection closes, at
// shutdown, or on `command/exec/terminate`. They go through the host's one CommandRunner, so
// they share the model's commands' slots, deadlines, output caps and sandbox.
import { invalidRequest } from '../../../common/errors.js';
import type { CommandRunner, CommandRequest } from '../exec/command-runner.js';
import { STDIN_CLOSED } from '../exec/process-control-errors.js';
import type { ProcessControl, TerminalSize } from '../exec/running-command.js';
import type { ConnectionId } from '../../connections.js';

/** What a session's client can reach while it runs. */
interface ExecSession {
  /** Set once the process runs (null once it ended); a write before then waits for it. */
  control: Promise<ProcessControl | null>;
  /** The same, known synchronously: a kill must not race the start. */
  current: ProcessControl | null;
  readonly stdinPipe: boolean;
  /** Ends it (SIGKILL) even before it started: its interrupt. */
  readonly abort: AbortController;
}

/** A session's key within its connection: the client's processId, or an internal one. */
type SessionKey = { kind: 'client'; processId: string } | { kind: 'internal'; id: number };

export class CommandExecSessions {
  /** Running sessions, by connection, then by key (`c:<processId>` or `i:<n>`). */
  readonly #byConnection = new Map<ConnectionId, Map<string, ExecSession>>();
  #nextInternal = 1;

  constructor(private readonly runner: () => Promise<CommandRunner>) {}

  /**
   * Runs `request` for `connection`; the reply waits for its end. Refuses a processId the
   * connection already runs, as the reference does.
   */
  run(connection: ConnectionId, processId: string | null, request: Omit<CommandRequest, 'signal' | 'onStarted'>): ReturnType<CommandRunner['run']> {
    const key: SessionKey = processId === null ? { kind: 'internal', id: this.#nextInternal++ } : { kind: 'client', processId };
    const name = key.kind === 'client' ? `c:${key.processId}` : `i:${key.id}`;
    let sessions = this.#byConnection.get(connection);
    if (sessions?.has(name) === true) throw invalidRequest(`duplicate active command/exec process id: ${JSON.stringify(processId)}`);
    if (sessions === undefined) this.#byConnection.set(connection, (sessions = new Map()));
    let started!: (control: ProcessControl | null) => void;
    const session: ExecSession = {
      control: new Promise((resolve) => (started = resolve)),
      current: null,
      stdinPipe: request.stdinPipe === true,
      abort: new AbortController(),
    };
    sessions.set(name, session);
    const mine = sessions;
    return (async () => {
      try {
        const runner = await this.runner();
        return await runner.run({
          ...request,
          signal: session.abort.signal,
          onStarted: (control) => {
            session.current = control;
            started(control);
          },
        });
      } finally {
        session.current = null;
        started(null);
        if (mine.get(name) === session) mine.delete(name);
        if (mine.size === 0 && this.#byConnection.get(connection) === mine) this.#byConnection.delete(connection);
      }
    })();
  }

  /** command/exec/write: bytes to stdin, then (with `close`) its end. */
  async write(connection: ConnectionId, processId: string, bytes: Buffer | null, close: boolean): Promise<Record<string, never>> {
    const session = this.#require(connection, processId);
    if (!session.stdinPipe) throw invalidRequest('stdin streaming is not enabled for this command/exec');
    const control = await session.control;
    if (control === null) throw noSession(processId);
    if (bytes !== null && bytes.length > 0) {
      await control.writeStdin(bytes).catch((error: unknown) => {
        const message = (error as Error).message;
        throw invalidRequest(message === STDIN_CLOSED ? STDIN_CLOSED : `failed to write command/exec stdin: ${message}`);
      });
    }
    if (close) control.closeStdin();
    return {};
  }

  /** command/exec/terminate: the process group is killed (exit 137); the run's reply follows. */
  terminate(connection: ConnectionId, processId: string): Record<string, never> {
    killSession(this.#require(connection, processId));
    return {};
  }

  /** command/exec/resize: a command on a terminal gets the new size (and SIGWINCH); one on pipes is refused. */
  async resize(connection: ConnectionId, processId: string, size: TerminalSize): Promise<Record<string, never>> {
    const session = this.#require(connection, processId);
    const control = await session.control;
    if (control === null) throw noSession(processId);
    try {
      control.resize(size);
    } catch (error) {
      throw invalidRequest(`failed to resize PTY: ${(error as Error).message}`);
    }
    return {};
  }

  /** The connection closed: each of its commands is killed. */
  connectionClosed(connection: ConnectionId): void {
    const sessions = this.#byConnection.get(connection);
    if (sessions === undefined) return;
    this.#byConnection.delete(connection);
    for (const session of sessions.values()) killSession(session);
  }

  /** Shutdown: every session is killed before anything waits for replies in flight. */
  killAll(): void {
    for (const connection of [...this.#byConnection.keys()]) this.connectionClosed(connection);
  }

  #require(connection: ConnectionId, processId: string): ExecSession {
    const session = this.#byConnection.get(connection)?.get(`c:${processId}`);
    if (session === undefined) throw noSession(processId);
    return session;
  }
}

// A running process is SIGKILLed (it ends `signaled`, 137, as the reference's terminate); one
// still waiting for the runner or a slot is refused instead (the abort).
function killSession(session: ExecSession): void {
  if (session.current !== null) session.current.kill();
  else session.abort.abort();
}

const noSession = (processId: string) => invalidRequest(`no active command/exec for process id ${JSON.stringify(processId)}`);
