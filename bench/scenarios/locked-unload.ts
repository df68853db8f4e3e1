// `locked-unload`: another process holds the coordination flock, and K idle threads are
// unsubscribed under it. Each must unload (`thread/closed`) without waiting for the lock, the
// server must keep answering `thread/loaded/list`, and after release every thread must resume
// with its turn.
import { performance } from 'node:perf_hooks';
import { lockFiles } from '../lib/lock-window.js';
import { LOCK_STEP_DEADLINE_MS, recordBatch, resumedWithTurn, withLockCase } from './lock-case.js';
import { errorsOf, outcome, perKAndLockBackend, type Scenario } from './scenario.js';

export const lockedUnload: Scenario = {
  name: 'locked-unload',
  summary: 'K threads unsubscribed while another process holds the coordination lock: unsubscribe → all closed under the lock, loaded/list latency',
  cases: perKAndLockBackend,
  async run(ctx, { id, k, lockBackend }) {
    const { rec } = ctx;
    await withLockCase(ctx, k, lockBackend ?? 'flock', async ({ client, home, ids, window }) => {
      await window.open();
      // Register before sending: a fast server closes a thread before the unsubscribe reply.
      const closed = ids.map((threadId) => outcome(client.waitFor('thread/closed', threadId, LOCK_STEP_DEADLINE_MS).then((a) => ({ result: a.params, at: a.at }))));
      const unsubscribedAt = performance.now();
      const replies = ids.map((threadId) => outcome(client.requestTimed('thread/unsubscribe', { threadId })));
      // The hold runs its full length whatever the server does, so a server that waits for
      // the lock to unload shows it as closes after release, not as a shorter hold.
      await window.release();
      ctx.progress(0.6);
      const unsubscribeErrors = errorsOf(await Promise.all(replies));
      rec.check(unsubscribeErrors.length === 0, `unsubscribe: ${unsubscribeErrors.join('; ')}`);
      const closes = await Promise.all(closed);
      rec.check(errorsOf(closes).length === 0, `thread/closed: ${errorsOf(closes).join('; ')}`);
      rec.figure('unsubscribe→all closed', Math.max(...closes.map((c) => c.at)) - unsubscribedAt, 'ms');
      const underLock = closes.filter((c) => c.error === null && c.at < window.releaseAt).length;
      rec.figure('closed during hold', underLock, 'count', 'higher');
      rec.check(underLock === k, `${k - underLock} of ${k} threads did not close while the lock was held`);
      rec.figure('lock files during hold', lockFiles(home), 'count', 'none');

      const resumes = ids.map((threadId) => outcome(client.requestTimed('thread/resume', { threadId }, LOCK_STEP_DEADLINE_MS)));
      recordBatch(rec, window.releaseAt, 'resumed', await Promise.all(resumes), resumedWithTurn);
      await window.finish(rec, `locked-unload ${id}`);
    });
  },
};
