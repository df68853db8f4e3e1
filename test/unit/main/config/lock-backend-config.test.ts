import { describe, expect, test } from 'vitest';
import { ConfigError, type ConfigDocument } from '../../../../src/main/config/config-document.js';
import { resolveHostConfig } from '../../../../src/main/config/host-config.js';
import { resolveLockBackendConfig, type WriterLockBackendConfig } from '../../../../src/main/config/lock-backend-config.js';
import { configOrError, fromOverrides } from '../../../helpers/config-overrides.js';

function resolve(document: ConfigDocument): { config: WriterLockBackendConfig } | { error: string } {
  return configOrError(() => resolveLockBackendConfig(document));
}

describe('writer_lock_backend', () => {
  test('defaults to flock, which codex can share', () => {
    expect(resolve({})).toEqual({ config: { kind: 'flock' } });
  });

  test('lockfile takes the default 30 s stale time and 5 s heartbeat', () => {
    expect(resolve(fromOverrides('writer_lock_backend="lockfile"'))).toEqual({
      config: { kind: 'lockfile', staleMs: 30_000, updateMs: 5_000 },
    });
  });

  test('the timing keys are read from -c like every key', () => {
    expect(resolve(fromOverrides('writer_lock_backend=lockfile', 'lockfile_stale_ms=3000', 'lockfile_update_ms=1000'))).toEqual({
      config: { kind: 'lockfile', staleMs: 3_000, updateMs: 1_000 },
    });
  });

  test('an unknown backend is named with the two it could be', () => {
    expect(resolve({ writer_lock_backend: 'nfs' })).toEqual({
      error: 'writer_lock_backend: unknown variant `nfs`, expected `flock` or `lockfile`',
    });
    expect(resolve({ writer_lock_backend: 1n })).toEqual({
      error: 'writer_lock_backend: unknown variant a non-string value, expected `flock` or `lockfile`',
    });
  });

  test('a heartbeat that does not fit three times in the stale time is refused', () => {
    expect(resolve({ writer_lock_backend: 'lockfile', lockfile_stale_ms: 3000n, lockfile_update_ms: 1001n })).toEqual({
      error: 'lockfile_update_ms: invalid value: integer `1001`, expected at most a third of lockfile_stale_ms (3000)',
    });
  });

  test('values below proper-lockfile floors are refused, not silently raised', () => {
    expect(resolve({ lockfile_stale_ms: 1999n })).toEqual({
      error: 'lockfile_stale_ms: invalid value: integer `1999`, expected at least 2000 (milliseconds)',
    });
    expect(resolve({ lockfile_update_ms: 999n })).toEqual({
      error: 'lockfile_update_ms: invalid value: integer `999`, expected at least 1000 (milliseconds)',
    });
    expect(resolve({ lockfile_stale_ms: 'soon' })).toEqual({
      error: 'lockfile_stale_ms: invalid type: string "soon", expected u64',
    });
  });

  test('the timing is checked under flock too, so switching backends later cannot surprise', () => {
    expect(resolve({ lockfile_stale_ms: 2000n })).toEqual({
      error: 'lockfile_update_ms: invalid value: integer `5000`, expected at most a third of lockfile_stale_ms (2000)',
    });
  });

  test('a bad backend key fails thread configuration like any key', () => {
    expect(() => resolveHostConfig({ writer_lock_backend: 'nfs' })).toThrow(
      ConfigError.at('writer_lock_backend', 'unknown variant `nfs`, expected `flock` or `lockfile`'),
    );
  });
});
