// One spawned command on a pseudo-terminal (command/exec `tty: true`), from fork to its last
// output byte, as the reference's pty backend (codex-rs/utils/pty) runs it: node-pty forks it
// as the leader of a new session with the terminal as its controlling tty (so pid = process
// group), stdout and stderr are the one terminal stream (reported as stdout), input goes
// through the line discipline (echo, CRLF, Ctrl-C as SIGINT, Ctrl-D as end of input), and the
// master can be resized. A death by signal is exit 1, as the reference's pty backend reports
// one; a deadline is 124.
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import type { IPty } from '@lydell/node-pty';
import { MAX_EXEC_OUTPUT_DELTAS_PER_CALL, StreamCapture } from './output-capture.js';
import { signalGroup } from './process-groups.js';
import { GroupWatch } from './group-watch.js';
import { EXEC_TIMEOUT_EXIT_CODE, INTERRUPTED_EXIT_CODE, STDIN_CLOSED, type ProcessOutcome, type SpawnSpec, type TerminalSize } from './running-command.js';
import { checkProgram, terminalArgv } from './terminal-launch.js';

/** The reference's default terminal (`TerminalSize::default()`). */
export const DEFAULT_TERMINAL_SIZE: TerminalSize = { rows: 24, cols: 80 };
/** The exit code the reference's pty backend gives a command a signal ended. */
const SIGNALED_EXIT_CODE = 1;
// What closing stdin sends: the reference's pty writer, dropped, writes a newline and the
// terminal's end-of-file character (VEOF, Ctrl-D unless the program changed it), so a reader
// in canonical mode sees its line and then the end.
const CLOSE_STDIN_BYTES = Buffer.from('\n\x04');

type NodePty = typeof import('@lydell/node-pty');
let nodePty: NodePty | null = null;
// The native addon is loaded on the first command that asks for a terminal, not at start.
const loadNodePty = (): NodePty => (nodePty ??= createRequire(import.meta.url)('@lydell/node-pty') as NodePty);

/** What to fork on a terminal; stdin is the terminal, never a pipe. */
export interface TerminalSpawnSpec extends Omit<SpawnSpec, 'stdinPipe'> {
  readonly size: TerminalSize;
  /** Check the program exists first (it runs unsandboxed; bwrap reports its own). */
  readonly checkProgram: boolean;
}

/** Forks and supervises; rejects only when the command could not be started. */
export async function runOnTerminal(spec: TerminalSpawnSpec): Promise<ProcessOutcome> {
  if (spec.checkProgram) await checkProgram(spec.file, spec.env, spec.cwd);
  const [file, ...args] = terminalArgv(spec.file, spec.args, spec.env, spec.cwd, spec.nullDataFd);
  const started = performance.now();
  const terminal: IPty = loadNodePty().spawn(file!, args, {
    cwd: spec.cwd,
    env: spec.env,
    cols: spec.size.cols,
    rows: spec.size.rows,
    // Bytes, not text: a chunk can end inside a character.
    encoding: null,
    ...(spec.env.TERM !== undefined ? { name: spec.env.TERM } : {}),
  });
  const pid = terminal.pid;
  const watch = new GroupWatch(pid, spec);
  const stdout = new StreamCapture(spec.outputCapBytes);
  const stderr = new StreamCapture(spec.outputCapBytes);
  let stdinClosed = false;
  let exited = false;
  // node-pty closes the master once no process holds the terminal (read EIO), which can come
  // before the leader's exit; its fd number may be reused then, so nothing touches it after.
  // The reference keeps its master open until the end, where a write or a resize still
  // succeeds with no one to see it: so do they here.
  let masterClosed = false;
  const events = terminal as unknown as { on(event: 'close' | 'error', listener: () => void): void };
  events.on('close', () => (masterClosed = true));
  // A failed read or write on the master (the command gone) is the command's end to report;
  // without a listener of its own node-pty rethrows it.
  events.on('error', () => {});
  spec.onStarted?.({
    writeStdin: async (bytes) => {
      if (stdinClosed || exited) throw new Error(STDIN_CLOSED);
      // node-pty's socket takes bytes as they are (its type says string).
      if (!masterClosed) terminal.write(bytes as unknown as string);
    },
    closeStdin: () => {
      if (stdinClosed || exited) return;
      stdinClosed = true;
      if (!masterClosed) terminal.write(CLOSE_STDIN_BYTES as unknown as string);
    },
    interrupt: () => signalGroup(pid, 'SIGINT'),
    kill: () => signalGroup(pid, 'SIGKILL'),
    resize: (size) => {
      if (!masterClosed && !exited) terminal.resize(size.cols, size.rows);
    },
  });
  let deltas = 0;
  terminal.onData((data) => {
    const chunk = data as unknown as Buffer;
    stdout.append(chunk);
    if (spec.onOutput !== undefined && deltas < MAX_EXEC_OUTPUT_DELTAS_PER_CALL) {
      deltas += 1;
      spec.onOutput('stdout', chunk);
    }
  });
  // node-pty reports the exit once the terminal's output has closed (or shortly after, when a
  // process outside the group still holds it).
  return new Promise((resolve) => {
    terminal.onExit(({ exitCode, signal }) => {
      exited = true;
      // What the leader left in its group is SIGKILLed here, which nothing survives; the answer
      // does not wait for init to reap them, as the reference's does not (it kills the group
      // once it has answered).
      void watch.leaderExited();
      const signaled = signal !== undefined && signal > 0;
      const end = watch.ending ?? (signaled ? 'signaled' : 'exited');
      const code = end === 'timedOut' ? EXEC_TIMEOUT_EXIT_CODE : end === 'interrupted' ? INTERRUPTED_EXIT_CODE : signaled ? SIGNALED_EXIT_CODE : exitCode;
      resolve({ ending: end, exitCode: code, signal: null, durationMs: performance.now() - started, stdout, stderr });
    });
  });
}
