// The queue's durable copy: changes land in the order they were made, each file replaced
// whole (no temporary file left), read back by a new store as the last change left it.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { ThreadQueueStore, type QueuedSubmission } from '../../../../src/main/store/files/queues/thread-queue-store.js';
import { threadIdOf } from '../../../../src/common/thread-id.js';

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});
const newHome = () => {
  const home = mkdtempSync(join(tmpdir(), 'thread-host-queue-store-'));
  homes.push(home);
  return home;
};
const submission = (id: string): QueuedSubmission => ({ id, input: [{ type: 'text', text: id, text_elements: [] }], clientUserMessageId: `c-${id}`, responsesapiClientMetadata: null });
// An id as a client may spell it, in the one form the edge gives it (common/thread-id.ts).
const THREAD = threadIdOf('01A24399-1643-7E23-8B8B-8640F54020AC');

test('changes made at once land in order, and a new store reads the last', async () => {
  const home = newHome();
  const store = new ThreadQueueStore(home);
  expect(await store.get(THREAD)).toEqual([]);
  await Promise.all([store.replace(THREAD, [submission('a')]), store.replace(THREAD, [submission('a'), submission('b')]), store.replace(THREAD, [submission('b')])]);
  expect(store.peek(THREAD)).toEqual([submission('b')]);
  expect(readdirSync(join(home, 'thread-queues'))).toEqual([`${THREAD.toLowerCase()}.json`]);
  expect(JSON.parse(readFileSync(join(home, 'thread-queues', `${THREAD.toLowerCase()}.json`), 'utf8'))).toEqual({ threadId: THREAD, queue: [submission('b')] });
  expect(await new ThreadQueueStore(home).get(THREAD)).toEqual([submission('b')]);
});

test('a queue file that is not JSON is an internal error, not an empty queue', async () => {
  const home = newHome();
  mkdirSync(join(home, 'thread-queues'));
  writeFileSync(join(home, 'thread-queues', `${THREAD.toLowerCase()}.json`), '{"queue": [');
  await expect(new ThreadQueueStore(home).get(THREAD)).rejects.toMatchObject({ code: -32603 });
});
