// What node-pty is asked to fork: `sh` opens bwrap's fd 3; and a program that cannot be found
// is refused with the reference's words.
import { expect, test } from 'vitest';
import { checkProgram, terminalArgv } from '../../../../../src/main/tools/exec/terminal-launch.js';

test('sh opens /dev/null on fd 3 for bwrap, then execs it in place; anything else is forked as it is', () => {
  expect(terminalArgv('cat', ['-n'], false)).toEqual(['cat', '-n']);
  expect(terminalArgv('bwrap', ['--', 'ls'], true)).toEqual(['/bin/sh', '-c', 'exec 3</dev/null && exec "$@"', 'sh', 'bwrap', '--', 'ls']);
});

test('a program not found is the reference\'s spawn error', async () => {
  await expect(checkProgram('/nonexistent/prog', {}, '/')).rejects.toThrow(/^No such file or directory \(os error 2\)$/);
  await expect(checkProgram('no-such-program-here', { PATH: '/usr/bin:/bin' }, '/')).rejects.toThrow(/^Unable to spawn no-such-program-here because:\nNo viable candidates found in PATH "\/usr\/bin:\/bin"$/);
  await expect(checkProgram('sh', { PATH: '/usr/bin:/bin' }, '/')).resolves.toBeUndefined();
});
