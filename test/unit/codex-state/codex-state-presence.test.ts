// The mirror asks whether codex's databases exist before it posts anything: a home codex never
// ran in (neither database) gets no job, hence no worker, and one notice per database; a
// database that appears is found once the last finding is PRESENCE_RECHECK_MS old, and changes
// go out in the order they came.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import type { CodexStateRequest } from '../../../src/common/codex-db/codex-state-changes.js';
import { CodexStateMirror, PRESENCE_RECHECK_MS } from '../../../src/main/store/files/codex-state-mirror.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

test('nothing is posted while neither database exists, and each absence is said once; a database that appears is used', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'codex-state-presence-'));
  dirs.push(dir);
  const databases = { state: join(dir, 'state_5.sqlite'), queue: join(dir, 'queue_1.sqlite') };
  let at = 1_000;
  const clock = { now: () => at, setTimeout: () => 0, clearTimeout: () => undefined };
  const posted: unknown[] = [];
  const jobs = {
    run: async (request: CodexStateRequest) => {
      posted.push((request as { change: unknown }).change);
      return { kind: 'done' as const, reply: { kind: 'mirrored' as const, notices: [] } as never };
    },
    close: async () => undefined,
  };
  const logged: unknown[] = [];
  const mirror = new CodexStateMirror(jobs, databases, clock, (...line) => logged.push(line));

  mirror.nameSet('t1', 'first');
  mirror.nameSet('t1', 'second');
  await mirror.settled();
  expect(posted).toEqual([]);
  const reason = 'the database does not exist (the reference creates it)';
  expect(logged).toEqual([
    ['info', 'not mirroring into the reference database', { database: databases.state, threadId: 't1', reason }],
    ['info', 'not mirroring into the reference database', { database: databases.queue, threadId: 't1', reason }],
  ]);

  writeFileSync(databases.state, '');
  at += PRESENCE_RECHECK_MS - 1;
  mirror.nameSet('t1', 'still unseen');
  await mirror.settled();
  expect(posted).toEqual([]);
  at += 1;
  mirror.nameSet('t1', 'third');
  mirror.threadDeleted('t1');
  await mirror.settled();
  expect(posted).toEqual([
    { kind: 'name', threadId: 't1', name: 'third' },
    { kind: 'threadDeleted', threadId: 't1' },
  ]);
  expect(logged.length).toBe(2);
});
