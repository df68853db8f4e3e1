import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { ConfigError } from '../../../../src/main/config/config-document.js';
import { ensureHomeBackend } from '../../../../src/main/store/files/locks/home-marker.js';

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});
function tempHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'thread-host-marker-'));
  homes.push(home);
  return home;
}

test('the first host records its backend, leaving no temporary file; the same backend matches after', () => {
  const home = tempHome();
  expect([ensureHomeBackend(home, 'lockfile'), ensureHomeBackend(home, 'lockfile')]).toEqual(['created', 'matched']);
  expect([readdirSync(home), readFileSync(join(home, 'writer-lock-backend'), 'utf8')]).toEqual([['writer-lock-backend'], 'lockfile\n']);
});

test('a host configured for the other backend is refused, naming both and the marker', () => {
  const home = tempHome();
  ensureHomeBackend(home, 'lockfile');
  const marker = join(home, 'writer-lock-backend');
  expect(() => ensureHomeBackend(home, 'flock')).toThrow(
    new ConfigError(
      `this home's writer locks use the \`lockfile\` backend (recorded in ${marker}), but this host is configured with ` +
        'writer_lock_backend = "flock"; hosts with different backends cannot exclude each other, so every host on a ' +
        'home must use the same one (set writer_lock_backend = "lockfile", or use another home)',
    ),
  );
});

test('a marker holding anything else is never overwritten, and refuses both backends', () => {
  const home = tempHome();
  writeFileSync(join(home, 'writer-lock-backend'), 'nfs\n');
  expect(() => ensureHomeBackend(home, 'flock')).toThrow(/use the `nfs` backend/);
  expect(() => ensureHomeBackend(home, 'lockfile')).toThrow(/use the `nfs` backend/);
  expect(readFileSync(join(home, 'writer-lock-backend'), 'utf8')).toBe('nfs\n');
});
