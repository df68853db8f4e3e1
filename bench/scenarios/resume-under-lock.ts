// `resume-under-lock`: K threads with one turn each are unsubscribed and unloaded; then another
// process holds the coordination flock while K cold `thread/resume`s wait for it. The server
// must keep answering `thread/loaded/list` meanwhile; after release every resume must return
// its thread with one turn.
import { performance } from 'node:perf_hooks';
import { lockFiles } from '../lib/lock-window.js';
import { LOCK_STEP_DEADLINE_MS, recordBatch, resumedWithTurn, withLockCase } from './lock-case.js';
import { outcome, perKAndLockBackend, type Scenario } from './scenario.js';

export const resumeUnderLock: Scenario = {
  name: 'resume-under-lock',
  summary: 'K cold thread/resume wait on a held coordination lock: loaded/list latency and gaps during the hold, release → all resumed',
  cases: perKAndLockBackend,
  async run(ctx, { id, k, lockBackend }) {
    const { rec } = ctx;
    await withLockCase(ctx, k, lockBackend ?? 'flock', async ({ client, home, ids, window }) => {
      const closed = ids.map((threadId) => client.waitFor('thread/closed', threadId, LOCK_STEP_DEADLINE_MS));
      const unsubscribedAt = performance.now();
      await Promise.all(ids.map((threadId) => client.request('thread/unsubscribe', { threadId })));
      rec.figure('unsubscribe→all closed', Math.max(...(await Promise.all(closed)).map((c) => c.at)) - unsubscribedAt, 'ms');
      rec.figure('lock files after close', lockFiles(home), 'count');

      await window.open();
      const resumes = ids.map((threadId) => outcome(client.requestTimed('thread/resume', { threadId }, LOCK_STEP_DEADLINE_MS)));
      await window.release();
      ctx.progress(0.8);
      recordBatch(rec, window.releaseAt, 'resumed', await Promise.all(resumes), resumedWithTurn);
      rec.figure('lock files after resume', lockFiles(home), 'count', 'none');
      await window.finish(rec, `resume-under-lock ${id}`);
    });
  },
};
