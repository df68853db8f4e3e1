// A reverted thread's preview is its first file's first message (codex 0.171.0 keeps it in its
// state database, thread-revert.jsonl), checked on the files the reference left after reverting
// a thread twice (test/fixtures/rollouts/reference-reverted); any other rollout keeps its own.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { threadPreview } from '../../../../src/common/rollout/thread-preview.js';

const FIXTURE = fileURLToPath(new URL('../../../fixtures/rollouts/reference-reverted/sessions/', import.meta.url));
const THREAD = '01a2441f-9162-7e20-bb69-67ca7806dcca';
const FIRST = `rollout-2026-12-05T02-54-09-${THREAD}.jsonl`;
const NEWEST = `rollout-2026-12-05T02-54-10-${THREAD}_01a2441f-977b-7910-9a75-063680776bf1.jsonl`;

let dir: string;
let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'thread-host-thread-preview-'));
  cpSync(FIXTURE, join(home, 'sessions'), { recursive: true });
  dir = join(home, 'sessions', '2026', '12', '05');
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

test("a file a revert started shows the thread's first message; a thread's first file its own", () => {
  expect([threadPreview(join(dir, NEWEST), THREAD, 'kept'), threadPreview(join(dir, FIRST), THREAD, 'kept')]).toEqual(['one', 'kept']);
});

test('with no readable first file, or none with a message, the preview is what the history shows', () => {
  writeFileSync(join(dir, FIRST), '');
  expect(threadPreview(join(dir, NEWEST), THREAD, 'kept')).toBe('kept');
  rmSync(join(dir, FIRST));
  expect(threadPreview(join(dir, NEWEST), THREAD, 'kept')).toBe('kept');
});
