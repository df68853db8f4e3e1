// ThreadMetadata: the reference's patch semantics, its file read back at start (torn and
// foreign lines skipped), and a deleted thread forgotten; ThreadNames.forget beside it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { ThreadMetadata } from '../../../../src/main/store/files/thread-metadata.js';
import { ThreadNames } from '../../../../src/main/store/files/thread-names.js';
import { threadIdOf, type ThreadId } from '../../../../src/common/thread-id.js';

const A = '01a24398-0000-7000-8000-00000000000a' as ThreadId;
const B = '01a24398-0000-7000-8000-00000000000b' as ThreadId;
const quiet = () => undefined;
let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'thread-host-metadata-unit-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

test('a patch leaves absent fields, clears null ones, and an all-null gitInfo is none', async () => {
  const store = new ThreadMetadata(home, quiet);
  expect(await store.update(A, { gitInfo: { branch: 'main', sha: 'abc' }, daybreakEnabled: null }, 0)).toEqual({ gitInfo: { sha: 'abc', branch: 'main', originUrl: null }, daybreakEnabled: null });
  expect(await store.update(A, { gitInfo: null, daybreakEnabled: false }, 0)).toEqual({ gitInfo: { sha: 'abc', branch: 'main', originUrl: null }, daybreakEnabled: false });
  expect(await store.update(A, { gitInfo: { sha: null, originUrl: 'u' }, daybreakEnabled: null }, 0)).toEqual({ gitInfo: { sha: null, branch: 'main', originUrl: 'u' }, daybreakEnabled: false });
  expect(await store.update(A, { gitInfo: { branch: null, originUrl: null }, daybreakEnabled: null }, 0)).toEqual({ gitInfo: null, daybreakEnabled: false });
  expect([store.get(A), store.get(B)]).toEqual([{ gitInfo: null, daybreakEnabled: false }, null]);
});

test('the file is read back at start, last line of an id winning, torn and foreign lines skipped', async () => {
  const store = new ThreadMetadata(home, quiet);
  await store.update(A, { gitInfo: { branch: 'one' }, daybreakEnabled: null }, Date.parse('2026-12-05T00:00:00Z'));
  await store.update(B, { gitInfo: null, daybreakEnabled: true }, Date.parse('2026-12-05T00:00:01Z'));
  await store.update(A, { gitInfo: { branch: 'two' }, daybreakEnabled: null }, Date.parse('2026-12-05T00:00:02Z'));
  const path = join(home, 'thread-host-metadata.jsonl');
  expect(readFileSync(path, 'utf8').split('\n')[0]).toBe(`{"id":"${A}","git_info":{"sha":null,"branch":"one","origin_url":null},"daybreak_enabled":null,"updated_at":"2026-12-05T00:00:00.000Z"}`);
  writeFileSync(path, `${readFileSync(path, 'utf8')}{"name":"other"}\n{"id":"${B}","git_in`);
  const again = new ThreadMetadata(home, quiet);
  expect([again.get(A), again.get(B)]).toEqual([{ gitInfo: { sha: null, branch: 'two', originUrl: null }, daybreakEnabled: null }, { gitInfo: null, daybreakEnabled: true }]);
});

test('a deleted thread is forgotten, in memory and after a restart', async () => {
  const store = new ThreadMetadata(home, quiet);
  await store.update(A, { gitInfo: { branch: 'main' }, daybreakEnabled: null }, 0);
  await store.update(B, { gitInfo: null, daybreakEnabled: true }, 0);
  await store.forget(A, 0);
  expect([store.get(A), new ThreadMetadata(home, quiet).get(A), new ThreadMetadata(home, quiet).get(B)]).toEqual([null, null, { gitInfo: null, daybreakEnabled: true }]);
});

test('ThreadNames.forget drops only the thread\'s lines, keeping the others and lines it cannot parse', async () => {
  const names = new ThreadNames(home, quiet);
  await names.set(A, 'first', 0);
  await names.set(B, 'kept', 0);
  await names.set(A, 'second', 0);
  const path = join(home, 'session_index.jsonl');
  writeFileSync(path, `${readFileSync(path, 'utf8')}not json\n`);
  await names.forget(threadIdOf(A.toUpperCase()));
  expect(readFileSync(path, 'utf8')).toBe(`{"id":"${B}","thread_name":"kept","updated_at":"1970-01-01T00:00:00.000000000Z"}\nnot json\n`);
  expect([names.get(A), names.get(B), new ThreadNames(home, quiet).get(A)]).toEqual([null, 'kept', null]);
});
