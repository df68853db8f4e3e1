// `start-under-lock`: another process holds the coordination flock while K `thread/start`s
// (each needs a writer lock) wait for it. The server must keep answering `thread/loaded/list`
// meanwhile; after release every start must succeed.
import { LOCK_STEP_DEADLINE_MS, recordBatch, withLockCase } from './lock-case.js';
import { outcome, perKAndLockBackend, type Scenario } from './scenario.js';

export const startUnderLock: Scenario = {
  name: 'start-under-lock',
  summary: 'K thread/start wait on a held coordination lock: loaded/list latency and gaps during the hold, release → all started',
  cases: perKAndLockBackend,
  async run(ctx, { id, k, lockBackend }) {
    await withLockCase(ctx, /*threads*/ 0, lockBackend ?? 'flock', async ({ client, window }) => {
      await window.open();
      const starts = Array.from({ length: k }, () => outcome(client.requestTimed('thread/start', {}, LOCK_STEP_DEADLINE_MS)));
      await window.release();
      ctx.progress(0.7);
      recordBatch(ctx.rec, window.releaseAt, 'started', await Promise.all(starts), (o) => typeof o.result?.thread?.id === 'string');
      await window.finish(ctx.rec, `start-under-lock ${id}`);
    });
  },
};
