// thread/list reads its page again from the disk: a row whose file no longer holds that
// thread's rollout sends the listing round again, and the page is made of what the files hold.
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { rolloutPathFor } from '../../../../src/common/rollout/rollout-path.js';
import type { Connection } from '../../../../src/main/connections.js';
import { threadList } from '../../../../src/main/handlers/thread-list.js';
import { threadListParams } from '../../../../src/main/protocol/method-params.js';
import { stubHostContext } from '../../../helpers/stub-host-context.js';
import { fixedThreadId as id } from '../../../helpers/fixed-ids.js';
import { writeMinimalRollout } from '../../../helpers/minimal-rollout.js';

const created = (n: number) => `2026-12-02T10:00:0${n}.000Z`;

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'thread-list-fresh-'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

function writeThread(n: number, owner = id(n)): string {
  return writeMinimalRollout(home, { threadId: id(n), created: created(n), message: `thread ${n}`, owner });
}

test('a page row whose file stopped being its rollout is listed again without it', async () => {
  const ctx = stubHostContext(home);
  const list = async (params: Record<string, unknown>) =>
    (await threadList(ctx, {} as Connection, threadListParams(params))) as { data: Array<{ id: string }>; nextCursor: string | null; backwardsCursor: string | null };
  [1, 2, 3].forEach((n) => writeThread(n));
  expect((await list({ limit: 1 })).data.map((t) => t.id)).toEqual([id(3)]);
  // Rewritten in place to name another thread: the kept head says T3, the file no longer does.
  const path = writeThread(3, id(9));
  expect(readFileSync(path, 'utf8')).toContain(id(9));
  const first = await list({ limit: 1 });
  expect({ ...first, data: first.data.map((t) => t.id) }).toEqual({
    data: [id(2)],
    readStates: { [id(2)]: { firstUnread: null, revision: `initial:${id(2)}` } },
    nextCursor: `2026-12-02T10:00:02Z|${id(2)}`,
    backwardsCursor: '2026-12-02T10:00:01.999Z',
  });
  expect((await list({ limit: 1, cursor: first.nextCursor })).data.map((t) => t.id)).toEqual([id(1)]);
  expect((await list({ limit: 5, sortKey: 'updated_at' })).data.map((t) => t.id).sort()).toEqual([id(1), id(2)]);
  expect((await list({ limit: 5 })).data.map((t) => t.id)).toEqual([id(2), id(1)]);
});

test('a search of previews finds a first message rewritten in place after its head was kept', async () => {
  const ctx = stubHostContext(home);
  const list = async (params: Record<string, unknown>) => ((await threadList(ctx, {} as Connection, threadListParams(params))) as { data: Array<{ id: string; preview: string }> }).data;
  [1, 2, 3].forEach((n) => writeThread(n));
  expect((await list({ limit: 5 })).map((t) => t.preview)).toEqual(['thread 3', 'thread 2', 'thread 1']);
  // As a writer that cut a failed first turn back and wrote another would leave it: same inode.
  const path = rolloutPathFor(home, id(1), Date.parse(created(1)));
  writeFileSync(path, readFileSync(path, 'utf8').replace('"message":"thread 1"', '"message":"thread 1 needle"'));
  expect((await list({ searchTerm: 'needle' })).map((t) => [t.id, t.preview])).toEqual([[id(1), 'thread 1 needle']]);
});
