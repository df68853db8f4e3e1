// What node-pty's fork is asked to run for a command on a terminal, so that it starts as it
// would on pipes: node-pty cannot pass fds beyond the terminal, so a sandbox that reads
// /dev/null on fd 3 (bwrap's `--ro-bind-data 3`) gets it from `sh` first, which then execs in
// place (the command keeps the pid, session and process group the fork made for it). And the
// program is looked up first, since node-pty's child reports a failed exec only as output.
import { access, constants, stat } from 'node:fs/promises';
import { delimiter, join, resolve } from 'node:path';
import { ioErrorText } from '../../../common/io-error-text.js';
import { NULL_DATA_FD } from './bwrap-args.js';

const SH = '/bin/sh';
const OPEN_NULL_FD_THEN_EXEC = `exec ${NULL_DATA_FD}</dev/null && exec "$@"`;

/** A program node-pty could not start, with the reference's words for why. */
export class TerminalSpawnError extends Error {}

/** The argv node-pty forks for `file args`. */
export function terminalArgv(file: string, args: readonly string[], nullDataFd: boolean): string[] {
  return nullDataFd ? [SH, '-c', OPEN_NULL_FD_THEN_EXEC, 'sh', file, ...args] : [file, ...args];
}

/**
 * Checks that `program` can be found before node-pty forks it: node-pty's child reports a
 * failed exec only as output and exit 1, where the reference answers the spawn's error (its
 * pty backend searches PATH itself, and says so when nothing is found).
 */
export async function checkProgram(program: string, env: Readonly<Record<string, string>>, cwd: string): Promise<void> {
  if (program.includes('/')) {
    try {
      await access(resolve(cwd, program), constants.X_OK);
    } catch (error) {
      throw new TerminalSpawnError(ioErrorText(error));
    }
    return;
  }
  const path = env.PATH ?? '';
  for (const dir of path.split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, program);
    if (await isExecutableFile(candidate)) return;
  }
  throw new TerminalSpawnError(`Unable to spawn ${program} because:\nNo viable candidates found in PATH ${JSON.stringify(path)}`);
}

async function isExecutableFile(path: string): Promise<boolean> {
  try {
    if (!(await stat(path)).isFile()) return false;
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
