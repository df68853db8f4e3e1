// Where the pool workers are told the reference's history database is, and when they are told
// nothing (the projection off).
import { describe, expect, test } from 'vitest';
import { ConfigError } from '../../../../src/main/config/config-document.js';
import { resolveCodexHistoryDatabase } from '../../../../src/main/config/codex-history-config.js';

const FLOCK = { kind: 'flock' } as const;
const LOCKFILE = { kind: 'lockfile', staleMs: 30_000, updateMs: 5_000 } as const;

describe('codex_history_projection', () => {
  test.each([
    ['unset: on, in the home', {}, {}, FLOCK, '/h/thread_history_1.sqlite'],
    ['true', { codex_history_projection: true }, {}, FLOCK, '/h/thread_history_1.sqlite'],
    ['false', { codex_history_projection: false }, {}, FLOCK, null],
    ['on a lockfile home', {}, {}, LOCKFILE, null],
    ['with sqlite_home', { sqlite_home: '/db' }, {}, FLOCK, '/db/thread_history_1.sqlite'],
    ['with a relative sqlite_home', { sqlite_home: 'db' }, {}, FLOCK, '/h/db/thread_history_1.sqlite'],
    ['with CODEX_SQLITE_HOME over sqlite_home', { sqlite_home: '/db' }, { CODEX_SQLITE_HOME: '/env' }, FLOCK, '/env/thread_history_1.sqlite'],
  ])('%s', (_case, document, env, backend, expected) => {
    expect(resolveCodexHistoryDatabase(document, '/h', env, backend)).toEqual(expected);
  });

  test('a value that is not a boolean is refused', () => {
    expect(() => resolveCodexHistoryDatabase({ codex_history_projection: 'yes' }, '/h', {}, FLOCK)).toThrow(
      ConfigError.at('codex_history_projection', 'invalid type: expected a boolean'),
    );
  });
});
