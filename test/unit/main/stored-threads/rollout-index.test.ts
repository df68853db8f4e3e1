import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { RolloutIndex } from '../../../../src/main/store/files/rollout-index.js';
import { threadIdOf, type ThreadId } from '../../../../src/common/thread-id.js';

const A = '01a23644-4410-7392-9ce9-3a08921e3af1' as ThreadId;
const B = '01a23645-6c4b-7b73-8274-5240162632aa' as ThreadId;
const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

function home(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rollout-index-'));
  homes.push(dir);
  return dir;
}

function rollout(dir: string, day: string, id: string): string {
  const folder = join(dir, 'sessions', '2026', '12', day);
  mkdirSync(folder, { recursive: true });
  const path = join(folder, `rollout-2026-12-${day}T10-00-00-${id}.jsonl`);
  writeFileSync(path, '{}\n');
  return path;
}

test('a rollout is found by walking once, then from memory, and an unknown id is null', async () => {
  const dir = home();
  const a = rollout(dir, '01', A);
  const b = rollout(dir, '02', B);
  const index = new RolloutIndex(dir);
  expect(await Promise.all([index.find(A), index.find(threadIdOf(B.toUpperCase())), index.find(A)])).toEqual([a, b, a]);
  expect(await index.find(threadIdOf('01a23646-0000-7000-8000-000000000000'))).toBe(null);
});

test('a file created or moved after a walk is found by a fresh walk', async () => {
  const dir = home();
  const index = new RolloutIndex(dir);
  expect(await index.find(A)).toBe(null);
  const first = rollout(dir, '01', A);
  expect(await index.find(A)).toBe(first);
  const moved = join(dir, 'sessions', '2026', '12', '01', `rollout-2026-12-01T11-00-00-${A}.jsonl`);
  renameSync(first, moved);
  expect(await index.find(A)).toBe(moved);
});

test('a remembered path is used without a walk, and forgotten once the file is gone', async () => {
  const dir = home();
  const index = new RolloutIndex(dir);
  const elsewhere = join(dir, 'remembered.jsonl');
  writeFileSync(elsewhere, '{}\n');
  index.remember(A, elsewhere);
  expect(await index.find(A)).toBe(elsewhere);
  rmSync(elsewhere);
  expect(await index.find(A)).toBe(null);
});

test("a thread the reference reverted is found at its newest file, whatever the walk's order", async () => {
  const dir = home();
  rollout(dir, '03', A);
  const newest = rollout(dir, '01', `${A}_01a24400-0000-7000-8000-000000000002`);
  rollout(dir, '02', `${A}_01a24400-0000-7000-8000-000000000001`);
  const remembered = new RolloutIndex(dir);
  // A path learned before the walk gives way to a newer file the walk finds.
  remembered.remember(A, rollout(dir, '04', A));
  expect(await Promise.all([new RolloutIndex(dir).find(A), remembered.find(B)])).toEqual([newest, null]);
  expect(await remembered.find(A)).toBe(newest);
});
