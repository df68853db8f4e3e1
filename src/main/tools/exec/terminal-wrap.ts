// A terminal for a command that asks for one (`exec_command` with `tty: true`), without a
// native pty binding: util-linux's `script` (Debian's essential bsdutils) opens the pty, runs
// the command on it and relays the session's stdin pipe to it, so the command sees a terminal
// (its line discipline echoes input, ends lines with CRLF, turns Ctrl-C into SIGINT and Ctrl-D
// into end of input) as under the reference's pty. `-e` keeps the command's exit code, `-f`
// flushes each read, and /dev/null takes the typescript. Inside bwrap, `--dev /dev` gives the
// sandbox its own devpts.
import { access, constants } from 'node:fs/promises';
import { joinWords } from '../../../common/shell-words.js';

const SCRIPT = '/usr/bin/script';
// Looked up once, without blocking the main thread: a binary of the base system does not come
// and go under a running host.
let available: Promise<boolean> | null = null;

/** `argv` run on a terminal; null on a machine without `script` (the command then gets pipes). */
export async function onTerminal(argv: readonly string[]): Promise<string[] | null> {
  available ??= access(SCRIPT, constants.X_OK).then(
    () => true,
    () => false,
  );
  return (await available) ? [SCRIPT, '-qfec', joinWords(argv), '/dev/null'] : null;
}
