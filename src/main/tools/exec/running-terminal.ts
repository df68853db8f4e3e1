// One spawned command on a pseudo-terminal (command/exec `tty: true`), from fork to its last
// output byte, as the reference's pty backend (codex-rs/utils/pty) runs it: node-pty's native
// fork makes it the leader of a new session with the terminal as its controlling tty (so pid =
// process group), stdout and stderr are the one terminal stream (reported as stdout), input
// goes through the line discipline (echo, CRLF, Ctrl-C as SIGINT, Ctrl-D as end of input), and
// the master can be resized. A death by signal is exit 1, as the reference's pty backend
// reports one; a deadline is 124.
//
// The master stays open until the command has ended, as the reference keeps its own: closing
// it hangs the terminal up (SIGHUP to the command). Node closes a stream's fd when a read
// fails, and a master read fails (EIO) as soon as no process holds the terminal, which a
// command that closes its fds and runs on would cause; so the host holds a slave fd of its
// own until the leader exits, and then reads the output that is left until EIO or
// IO_DRAIN_TIMEOUT_MS. node-pty's JavaScript layer would close the master at that first EIO
// and rewrite PWD and TERM, hence its native binding, used directly.
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { ReadStream } from 'node:tty';
import { MAX_EXEC_OUTPUT_DELTAS_PER_CALL, StreamCapture } from './output-capture.js';
import { signalGroup } from './process-groups.js';
import { GroupWatch, IO_DRAIN_TIMEOUT_MS } from './group-watch.js';
import { STDIN_CLOSED } from './process-control-errors.js';
import { EXEC_TIMEOUT_EXIT_CODE, INTERRUPTED_EXIT_CODE, type ProcessOutcome, type SpawnSpec, type TerminalSize } from './running-command.js';
import { checkProgram, terminalArgv } from './terminal-launch.js';

/** The exit code the reference's pty backend gives a command a signal ended. */
const SIGNALED_EXIT_CODE = 1;
// What closing stdin sends: the reference's pty writer, dropped, writes a newline and the
// terminal's end-of-file character (VEOF, Ctrl-D unless the program changed it), so a reader
// in canonical mode sees its line and then the end.
const CLOSE_STDIN_BYTES = Buffer.from('\n\x04');

/** node-pty's native binding (its src/unix/pty.cc), as @lydell/node-pty 1.1.0 ships it. */
interface NativePty {
  fork(
    file: string,
    args: readonly string[],
    env: readonly string[],
    cwd: string,
    cols: number,
    rows: number,
    uid: number,
    gid: number,
    /** Sets IUTF8 on the terminal; off, as a new pty's default (the reference sets none). */
    utf8: boolean,
    /** macOS only. */
    helperPath: string,
    onExit: (code: number, signal: number) => void,
  ): { fd: number; pid: number; pty: string };
  resize(fd: number, cols: number, rows: number): void;
}
let nativePty: NativePty | null = null;
// The native addon is loaded on the first command that asks for a terminal, not at start.
function loadNativePty(): NativePty {
  const binary = createRequire(import.meta.url)('@lydell/node-pty/requireBinary.js') as { requireBinary(file: string): NativePty };
  return (nativePty ??= binary.requireBinary('pty.node'));
}

/** What to fork on a terminal; stdin is the terminal, never a pipe. */
export interface TerminalSpawnSpec extends Omit<SpawnSpec, 'stdinPipe'> {
  readonly size: TerminalSize;
  /** Check the program exists first (it runs unsandboxed; bwrap reports its own). */
  readonly checkProgram: boolean;
}

/** Forks and supervises; rejects only when the command could not be started. */
export async function runOnTerminal(spec: TerminalSpawnSpec): Promise<ProcessOutcome> {
  if (spec.checkProgram) await checkProgram(spec.file, spec.env, spec.cwd);
  const native = loadNativePty();
  const [file, ...args] = terminalArgv(spec.file, spec.args, spec.nullDataFd);
  const started = performance.now();
  let leaderExit!: (status: { code: number; signal: number }) => void;
  const exitStatus = new Promise<{ code: number; signal: number }>((resolve) => (leaderExit = resolve));
  const env = Object.entries(spec.env).map(([name, value]) => `${name}=${value}`);
  const forked = native.fork(file!, args, env, spec.cwd, spec.size.cols, spec.size.rows, -1, -1, false, '', (code, signal) => leaderExit({ code, signal }));
  const pid = forked.pid;
  const watch = new GroupWatch(pid, spec);
  // Opened before the first read, so no EIO can come while the command runs.
  const heldSlave: FileHandle | null = await open(forked.pty, constants.O_RDWR | constants.O_NOCTTY).catch(() => null);
  const master = new ReadStream(forked.fd);
  const stdout = new StreamCapture(spec.outputCapBytes);
  const stderr = new StreamCapture(spec.outputCapBytes);
  let stdinClosed = false;
  let exited = false;
  let masterClosed = false;
  // A failed read or write on the master is the command's end to report.
  master.on('error', () => {});
  const closed = new Promise<void>((resolve) => master.once('close', resolve));
  void closed.then(() => (masterClosed = true));
  spec.onStarted?.({
    writeStdin: async (bytes) => {
      if (stdinClosed || exited) throw new Error(STDIN_CLOSED);
      if (!masterClosed) master.write(bytes);
    },
    closeStdin: () => {
      if (stdinClosed || exited) return;
      stdinClosed = true;
      if (!masterClosed) master.write(CLOSE_STDIN_BYTES);
    },
    interrupt: () => signalGroup(pid, 'SIGINT'),
    kill: () => signalGroup(pid, 'SIGKILL'),
    resize: (size) => {
      // Once closed, the fd number may belong to another file.
      if (!masterClosed) native.resize(forked.fd, size.cols, size.rows);
    },
  });
  let deltas = 0;
  master.on('data', (chunk: Buffer) => {
    stdout.append(chunk);
    if (spec.onOutput !== undefined && deltas < MAX_EXEC_OUTPUT_DELTAS_PER_CALL) {
      deltas += 1;
      spec.onOutput('stdout', chunk);
    }
  });
  const { code, signal } = await exitStatus;
  exited = true;
  await heldSlave?.close();
  // What is left to read, until no process holds the terminal or the drain's deadline.
  let drainTimer: NodeJS.Timeout | undefined;
  await Promise.race([closed, new Promise<void>((resolve) => (drainTimer = setTimeout(resolve, IO_DRAIN_TIMEOUT_MS)))]);
  clearTimeout(drainTimer);
  master.destroy();
  // What the leader left in its group is SIGKILLed, which nothing survives; the answer does
  // not wait for init to reap them, as the reference's does not.
  void watch.leaderExited();
  const signaled = signal > 0;
  const end = watch.ending ?? (signaled ? 'signaled' : 'exited');
  const exitCode = end === 'timedOut' ? EXEC_TIMEOUT_EXIT_CODE : end === 'interrupted' ? INTERRUPTED_EXIT_CODE : signaled ? SIGNALED_EXIT_CODE : code;
  return { ending: end, exitCode, signal: null, durationMs: performance.now() - started, stdout, stderr };
}
