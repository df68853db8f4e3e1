import { expect, test } from 'vitest';
import { unrecognizedKeys, unrecognizedSettingsWarning } from '../../../../src/main/config/unrecognized-settings.js';

test('unknown keys are found at the top, in MCP server and provider tables, a table named once, sorted', () => {
  const document = {
    zz_table: { a: 1, b: { c: 2 } },
    model: 'm',
    thread_unload_delay_secs: 5,
    mcp_servers: { s: { command: 'x', bogus: 1, experimental_environment: 'local', tools: { t: { nope: 1 } } }, broken: 3 },
    model_providers: { p: { base_url: 'u', request_timeout_ms: 1, wat: 2 } },
    alpha: 1,
  };
  expect(unrecognizedKeys(document)).toEqual(['alpha', 'mcp_servers.s.bogus', 'model_providers.p.wat', 'zz_table']);
});

test('the warning counts every key, names the first three, flags before the file, and is null for none', () => {
  const user = { type: 'user' as const, file: '/h/config.toml' };
  expect(unrecognizedSettingsWarning([{ layer: { type: 'sessionFlags' }, keys: [] }, { layer: user, keys: [] }])).toBeNull();
  expect(unrecognizedSettingsWarning([{ layer: user, keys: ['a'] }])).toBe(
    'Codex is ignoring 1 unrecognized configuration setting. Check for typos or deprecated settings.\n  user (/h/config.toml): `a` is ignored.',
  );
  expect(unrecognizedSettingsWarning([{ layer: { type: 'sessionFlags' }, keys: ['f'] }, { layer: user, keys: ['a', 'b', 'c'] }])).toBe(
    'Codex is ignoring 4 unrecognized configuration settings. Check for typos or deprecated settings.\n  session-flags: `f` is ignored.\n' +
      '  user (/h/config.toml): `a` is ignored.\n  user (/h/config.toml): `b` is ignored.\n  ... and 1 more ignored settings.',
  );
});
