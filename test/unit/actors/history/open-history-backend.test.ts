// The one factory of history backends: each location opens its store's backend, and an
// ephemeral thread's writes nothing. Opening one touches no store.
import { expect, test } from 'vitest';
import type { BackendContext } from '../../../../src/actors/history/backend-context.js';
import { NO_PROJECTION, type HistoryBackend } from '../../../../src/actors/history/history-backend.js';
import { openHistoryBackend } from '../../../../src/actors/history/open-history-backend.js';
import { turnEndRevision } from '../../../../src/common/turn-end-revision.js';
import { WriteFence } from '../../../../src/common/write-fence.js';

const context: BackendContext = {
  threadId: 't-1',
  fence: new WriteFence(new SharedArrayBuffer(4)),
  writerLease: null,
  diskFaults: null,
  serializeHistory: false,
  emit: () => undefined,
  revoked: () => null,
};

const seen = (backend: HistoryBackend) => ({
  kind: backend.constructor.name,
  name: backend.name,
  path: backend.path,
  receipt: backend.receipt('turn-1'),
  noProjection: backend.projection === NO_PROJECTION,
});

test('a rollout file opens the files backend: its path shown, its receipt kept by the host', () => {
  expect(seen(openHistoryBackend({ store: 'files', path: '/home/sessions/rollout-t-1.jsonl' }, context))).toEqual({
    kind: 'FilesBackend',
    name: '/home/sessions/rollout-t-1.jsonl',
    path: '/home/sessions/rollout-t-1.jsonl',
    receipt: undefined,
    noProjection: true,
  });
});

test('the PostgreSQL store opens its backend: no path, the receipt stored with the turn', () => {
  expect(seen(openHistoryBackend({ store: 'postgres', connection: { url: null }, epoch: 3, nextLine: 0 }, context))).toEqual({
    kind: 'PostgresBackend',
    name: 'thread t-1 in the PostgreSQL thread store',
    path: null,
    receipt: { turnId: 'turn-1', revision: turnEndRevision('turn-1') },
    noProjection: true,
  });
});

test('an ephemeral thread opens one that reads nothing and writes nothing', async () => {
  const backend = openHistoryBackend(null, context);
  expect({ ...seen(backend), appender: backend.openAppender(null), read: await backend.read() }).toEqual({
    kind: 'EphemeralBackend',
    name: 'ephemeral thread t-1',
    path: null,
    receipt: undefined,
    noProjection: true,
    appender: null,
    read: null,
  });
});
