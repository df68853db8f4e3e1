// `seed`: the reference's own test, idle_unload_finishes_while_writer_coordination_is_locked,
// step for step and timed. One thread with a completed turn; another process takes the
// coordination flock; unsubscribe must still produce `thread/closed`, and the loaded list must
// be empty, while the lock is held; after release, a resume returns the thread with its turn.
// Pass means every assertion of that test held.
import { performance } from 'node:perf_hooks';
import { holdFlock } from '../lib/flock-holder.js';
import { coordinationPath } from '../lib/lock-window.js';
import { UNLOAD_NOW } from '../lib/server-home.js';
import { firstLine, SINGLE_CASE, threadWithOneTurn, withServer, type Scenario } from './scenario.js';

/** The reference test allows 60 s for the close and the resume. */
const STEP_DEADLINE_MS = 60_000;

export const seed: Scenario = {
  name: 'seed',
  summary: 'the reference test: unsubscribe → thread/closed under a held coordination lock, empty loaded list, release, resume with 1 turn',
  cases: () => SINGLE_CASE,
  async run(ctx) {
    const { rec } = ctx;
    // As the reference test: two runtime workers, so one parked lock wait cannot hide behind spare cores.
    const options = { rootConfig: `${UNLOAD_NOW}\napprovals_reviewer = "user"`, env: { TOKIO_WORKER_THREADS: '2' } };
    await withServer(ctx, options, async (client, home) => {
      const threadId = await threadWithOneTurn(client, 'hello');
      ctx.progress(0.3);
      const holder = await holdFlock(coordinationPath(home), 'exclusive');
      let releaseAt = Number.NaN;
      try {
        const closed = client.waitFor('thread/closed', threadId, STEP_DEADLINE_MS);
        const sentAt = performance.now();
        const { status } = await client.request('thread/unsubscribe', { threadId });
        rec.check(status === 'unsubscribed', `unsubscribe: ${status}`);
        rec.figure('unsubscribe→closed', (await closed).at - sentAt, 'ms');
        const listSentAt = performance.now();
        const { result: loaded, at } = await client.requestTimed('thread/loaded/list', {});
        rec.figure('loaded/list under lock', at - listSentAt, 'ms');
        rec.check(JSON.stringify(loaded) === JSON.stringify({ data: [], nextCursor: null }), `loaded/list: ${JSON.stringify(loaded)}`);
      } catch (error) {
        rec.fail(error);
      } finally {
        releaseAt = performance.now();
        await holder.release();
      }
      ctx.progress(0.7);
      try {
        const { result, at } = await client.requestTimed('thread/resume', { threadId }, STEP_DEADLINE_MS);
        rec.figure('release→resumed', at - releaseAt, 'ms');
        rec.check(result.thread?.id === threadId && result.thread?.turns?.length === 1, 'resume: wrong thread or turn count');
      } catch (error) {
        rec.fail(`resume: ${firstLine(error)}`);
      }
    });
  },
};
