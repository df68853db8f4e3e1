// The unix-socket listener's files, laid out as the reference lays them out: the requested
// path (by default `<home>/app-server-control/app-server-control.sock`) is a symlink to the
// real socket `/tmp/codex-daemon-<uid>/<sha256 of the canonical requested path>`, which keeps
// the address under the 108-byte `sun_path` limit whatever the home. The requested path's
// directory is made (one level) or tightened to 0700, the socket is 0600. A socket left by a
// killed process is replaced; one that still accepts connections stops this start.
import { createHash } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, realpathSync, statSync, symlinkSync, unlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { basename, dirname, join } from 'node:path';
import { systemClock } from '../../common/clock.js';
import { withDeadline } from '../../common/deadline.js';
import { ioErrorText, StartupError } from '../startup-error.js';

/** The reference's `APP_SERVER_CONTROL_SOCKET_DIR_NAME` / `APP_SERVER_CONTROL_SOCKET_FILE_NAME`. */
export const defaultControlSocketPath = (home: string): string => join(home, 'app-server-control', 'app-server-control.sock');

// How long probing an existing socket may take before it counts as stale.
const PROBE_TIMEOUT_MS = 1_000;

/** The files of one unix listener: where to listen, and how to remove them at exit. */
export interface UnixSocketFiles {
  requestedPath: string;
  socketPath: string;
  /** Makes the socket 0600 and links the requested path to it (after listening). */
  publish(): void;
  /** Removes the link and the socket; safe to call more than once. */
  remove(): void;
}

/** Checks and clears the way for a listener at `requestedPath`; throws StartupError as the reference does. */
export async function prepareUnixSocket(requestedPath: string): Promise<UnixSocketFiles> {
  const parent = dirname(requestedPath);
  try {
    mkdirSync(parent, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw new StartupError(ioErrorText(error));
  }
  if ((statSync(parent).mode & 0o077) !== 0) chmodSync(parent, 0o700);
  await clearStale(requestedPath);
  const runtimeDir = `/tmp/codex-daemon-${process.getuid?.() ?? 0}`;
  mkdirSync(runtimeDir, { recursive: true, mode: 0o700 });
  const canonical = join(realpathSync(parent), basename(requestedPath));
  const socketPath = join(runtimeDir, createHash('sha256').update(canonical).digest('hex'));
  await clearStale(socketPath);
  return {
    requestedPath,
    socketPath,
    publish: () => {
      // The directory is 0700 already, so the socket is never reachable by others before this.
      chmodSync(socketPath, 0o600);
      symlinkSync(socketPath, requestedPath);
    },
    remove: () => {
      for (const path of [requestedPath, socketPath]) tryUnlink(path);
    },
  };
}

/** Removes a dead socket (or a link to one) at `path`; refuses a live one or a non-socket. */
async function clearStale(path: string): Promise<void> {
  let isLink: boolean;
  try {
    isLink = lstatSync(path).isSymbolicLink();
  } catch {
    return;
  }
  let target: ReturnType<typeof statSync> | null = null;
  try {
    target = statSync(path);
  } catch {
    // A link whose socket is gone: stale.
  }
  if (target !== null && !target.isSocket()) throw new StartupError(`app-server control socket path exists and is not a socket: ${path}`);
  if (target !== null && (await accepts(path))) throw new StartupError(`app-server control socket is already in use at ${path}`);
  if (isLink && target !== null) tryUnlink(realpathSync(path));
  tryUnlink(path);
}

async function accepts(path: string): Promise<boolean> {
  const socket = connect(path);
  const answered = new Promise<boolean>((resolve) => {
    socket.once('connect', () => resolve(true));
    socket.once('error', () => resolve(false));
  });
  try {
    return await withDeadline(answered, PROBE_TIMEOUT_MS, systemClock, () => false);
  } finally {
    socket.destroy();
  }
}

function tryUnlink(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}
