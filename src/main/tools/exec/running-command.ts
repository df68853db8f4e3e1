// One spawned command, from spawn to its last output byte: its own process group, a deadline,
// an interrupt, capped capture, and the reference's exit codes (codex-rs/core/src/exec.rs):
// a timeout is 124 (`EXEC_TIMEOUT_EXIT_CODE`), an interrupt 1 (the synthetic status the
// reference gives a cancelled command), a signal from elsewhere 128 + its number.
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { constants } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import { MAX_EXEC_OUTPUT_DELTAS_PER_CALL, StreamCapture } from './output-capture.js';
import { signalGroup } from './process-groups.js';
import { GroupWatch, IO_DRAIN_TIMEOUT_MS } from './group-watch.js';
import { NOT_A_TERMINAL, STDIN_CLOSED } from './process-control-errors.js';

/** The reference's `EXEC_TIMEOUT_EXIT_CODE` ("conventional timeout exit code"). */
export const EXEC_TIMEOUT_EXIT_CODE = 124;
/** The exit code the reference reports for a cancelled command. */
export const INTERRUPTED_EXIT_CODE = 1;
const EXIT_CODE_SIGNAL_BASE = 128;

/** Which stream a chunk came from. */
export type OutputStream = 'stdout' | 'stderr';

/** How the process ended. */
export type CommandEnding = 'exited' | 'signaled' | 'timedOut' | 'interrupted';

/** What to spawn: the program and args already wrapped in bwrap when sandboxed. */
export interface SpawnSpec {
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** Pass /dev/null as fd 3 (bwrap's `--ro-bind-data 3`). */
  readonly nullDataFd: boolean;
  readonly timeoutMs: number;
  /** SIGTERM first on interrupt, SIGKILL this long after. */
  readonly killGraceMs: number;
  readonly signal?: AbortSignal | undefined;
  readonly onOutput?: ((stream: OutputStream, chunk: Buffer) => void) | undefined;
  /** A pipe for stdin (command/exec's `streamStdin`); otherwise stdin is /dev/null. */
  readonly stdinPipe?: boolean | undefined;
  /** Bytes kept of each stream; default EXEC_OUTPUT_MAX_BYTES. */
  readonly outputCapBytes?: number | undefined;
  /** Called once the process runs, with what a client may do to it. */
  readonly onStarted?: ((control: ProcessControl) => void) | undefined;
}

/** A terminal's size in character cells. */
export interface TerminalSize {
  readonly rows: number;
  readonly cols: number;
}

/** What may be done to a running process from outside (command/exec/write, /terminate, /resize). */
export interface ProcessControl {
  /** Writes to stdin; resolves once written. Rejects when stdin is not a pipe or is closed. */
  writeStdin(bytes: Buffer): Promise<void>;
  closeStdin(): void;
  /** SIGINTs the whole group: Ctrl-C for a command without a terminal. */
  interrupt(): void;
  /** SIGKILLs the whole group: the command ends `signaled`, as the reference's terminate. */
  kill(): void;
  /** Sets its terminal's size; throws (NOT_A_TERMINAL) for a command on pipes. */
  resize(size: TerminalSize): void;
}

/** The process's end, before formatting. */
export interface ProcessOutcome {
  readonly ending: CommandEnding;
  readonly exitCode: number;
  readonly signal: NodeJS.Signals | null;
  readonly durationMs: number;
  readonly stdout: StreamCapture;
  readonly stderr: StreamCapture;
}

/** Spawns and supervises; rejects only when the process could not be started. */
export function runProcess(spec: SpawnSpec): Promise<ProcessOutcome> {
  const nullFd = spec.nullDataFd ? openSync('/dev/null', 'r') : null;
  const started = performance.now();
  const child = spawn(spec.file, spec.args, {
    cwd: spec.cwd,
    env: spec.env,
    // Its own group, so one signal to -pid reaches everything it starts.
    detached: true,
    stdio: [spec.stdinPipe === true ? 'pipe' : 'ignore', 'pipe', 'pipe', ...(nullFd === null ? [] : [nullFd])],
  });
  if (nullFd !== null) closeSync(nullFd);
  return new Promise((resolve, reject) => {
    const pid = child.pid;
    if (pid === undefined) {
      child.once('error', reject);
      return;
    }
    const watch = new GroupWatch(pid, spec);
    // After a successful spawn 'error' only reports a failed kill of a process already gone.
    child.on('error', () => {});
    const stdout = new StreamCapture(spec.outputCapBytes);
    const stderr = new StreamCapture(spec.outputCapBytes);
    // A reader that went away (EPIPE) is not the host's error: the command's end reports it.
    child.stdin?.on('error', () => {});
    spec.onStarted?.({
      writeStdin: (bytes) =>
        new Promise((resolveWrite, rejectWrite) => {
          const stdin = child.stdin;
          if (stdin === null || stdin.writableEnded || stdin.destroyed) {
            rejectWrite(new Error(STDIN_CLOSED));
            return;
          }
          stdin.write(bytes, (error) => (error ? rejectWrite(error) : resolveWrite()));
        }),
      closeStdin: () => child.stdin?.end(),
      interrupt: () => signalGroup(pid, 'SIGINT'),
      kill: () => signalGroup(pid, 'SIGKILL'),
      resize: () => {
        throw new Error(NOT_A_TERMINAL);
      },
    });
    let deltas = 0;
    const capture = (stream: OutputStream, capture: StreamCapture) => (chunk: Buffer) => {
      capture.append(chunk);
      if (spec.onOutput !== undefined && deltas < MAX_EXEC_OUTPUT_DELTAS_PER_CALL) {
        deltas += 1;
        spec.onOutput(stream, chunk);
      }
    };
    child.stdout!.on('data', capture('stdout', stdout));
    child.stderr!.on('data', capture('stderr', stderr));

    child.once('exit', (code, signal) => {
      // Resolve only once the group is empty, so a finished command has no process left.
      void Promise.all([drained([child.stdout!, child.stderr!]), watch.leaderExited()]).then(() => {
        const end = watch.ending ?? (signal !== null ? 'signaled' : 'exited');
        resolve({ ending: end, exitCode: exitCodeOf(end, code, signal), signal, durationMs: performance.now() - started, stdout, stderr });
      });
    });
  });
}

function exitCodeOf(ending: CommandEnding, code: number | null, signal: NodeJS.Signals | null): number {
  if (ending === 'timedOut') return EXEC_TIMEOUT_EXIT_CODE;
  if (ending === 'interrupted') return INTERRUPTED_EXIT_CODE;
  if (signal !== null) return EXIT_CODE_SIGNAL_BASE + (constants.signals[signal] ?? 0);
  return code ?? -1;
}

/** Resolves when every stream has closed, or after IO_DRAIN_TIMEOUT_MS (then they are dropped). */
function drained(streams: readonly Readable[]): Promise<void> {
  const open = streams.filter((stream) => !stream.closed);
  if (open.length === 0) return Promise.resolve();
  return new Promise((resolve) => {
    let left = open.length;
    const timer = setTimeout(() => {
      // Held open by a process outside the group (one that called setsid): stop reading.
      for (const stream of open) stream.destroy();
      resolve();
    }, IO_DRAIN_TIMEOUT_MS);
    for (const stream of open) {
      stream.once('close', () => {
        left -= 1;
        if (left === 0) {
          clearTimeout(timer);
          resolve();
        }
      });
    }
  });
}
