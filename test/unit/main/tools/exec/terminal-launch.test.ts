// What node-pty is asked to fork: `env` restores the PWD and TERM node-pty overwrites, `sh`
// opens bwrap's fd 3; and a program that cannot be found is refused with the reference's words.
import { expect, test } from 'vitest';
import { checkProgram, terminalArgv } from '../../../../../src/main/tools/exec/terminal-launch.js';

test('env puts back PWD and TERM only where node-pty would change them, options before assignments', () => {
  expect(terminalArgv('cat', ['-n'], { PWD: '/w', TERM: 'xterm' }, '/w', false)).toEqual(['cat', '-n']);
  expect(terminalArgv('cat', [], { PWD: '/elsewhere' }, '/w', false)).toEqual(['/usr/bin/env', '-u', 'TERM', 'PWD=/elsewhere', 'cat']);
  expect(terminalArgv('cat', [], { TERM: 'vt100' }, '/w', false)).toEqual(['/usr/bin/env', '-u', 'PWD', 'cat']);
  expect(terminalArgv('bwrap', ['--', 'ls'], { PWD: '/w', TERM: 'xterm' }, '/w', true)).toEqual(['/bin/sh', '-c', 'exec 3</dev/null && exec "$@"', 'sh', 'bwrap', '--', 'ls']);
});

test('a program not found is the reference\'s spawn error', async () => {
  await expect(checkProgram('/nonexistent/prog', {}, '/')).rejects.toThrow(/^No such file or directory \(os error 2\)$/);
  await expect(checkProgram('no-such-program-here', { PATH: '/usr/bin:/bin' }, '/')).rejects.toThrow(/^Unable to spawn no-such-program-here because:\nNo viable candidates found in PATH "\/usr\/bin:\/bin"$/);
  await expect(checkProgram('sh', { PATH: '/usr/bin:/bin' }, '/')).resolves.toBeUndefined();
});
