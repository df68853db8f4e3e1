// A model's command's environment, as codex 0.171.0 gives it (probed): the unified-exec variables
// where the host sets none, the host's own value where it does, and no credentials.
import { expect, test } from 'vitest';
import { commandEnv } from '../../../../../src/main/tools/shell/command-env.js';

test('the unified-exec variables fill in what the host does not set', () => {
  const defaults = { NO_COLOR: '1', TERM: 'dumb', LANG: 'C.UTF-8', LC_CTYPE: 'C.UTF-8', LC_ALL: 'C.UTF-8', COLORTERM: '', PAGER: 'cat', GIT_PAGER: 'cat', GH_PAGER: 'cat', CODEX_CI: '1' };
  expect(commandEnv({ PATH: '/usr/bin:/bin', HOME: '/home/u' })).toEqual({ PATH: '/usr/bin:/bin', HOME: '/home/u', ...defaults });
});

test("the host's own values win, and what looks like a credential is dropped", () => {
  const env = commandEnv({ TERM: 'xterm', PAGER: 'less', NO_COLOR: '0', LANG: 'en_US.UTF-8', LC_ALL: 'POSIX', COLORTERM: 'truecolor', OPENAI_API_KEY: 'k', GH_TOKEN: 't', unset: undefined });
  expect(env).toEqual({
    NO_COLOR: '0',
    TERM: 'xterm',
    LANG: 'en_US.UTF-8',
    LC_CTYPE: 'C.UTF-8',
    LC_ALL: 'POSIX',
    COLORTERM: 'truecolor',
    PAGER: 'less',
    GIT_PAGER: 'cat',
    GH_PAGER: 'cat',
    CODEX_CI: '1',
  });
});
