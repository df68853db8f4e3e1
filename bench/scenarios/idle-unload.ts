// `idle-unload`: unsubscribe → `thread/closed` with no lock held by anyone, for an idle thread
// with a materialized rollout and `thread_unload_delay_secs = 0`, repeated on fresh threads.
// The unsubscribe's own reply is timed too: one request round trip is the floor the close is
// measured against (issue 13, item 2).
import { performance } from 'node:perf_hooks';
import { LatencyHistogram } from '../lib/histogram.js';
import { UNLOAD_NOW } from '../lib/server-home.js';
import { SINGLE_CASE, threadWithOneTurn, withServer, type Scenario } from './scenario.js';

const REPEATS = 50;
const DEADLINE_MS = 10_000;

export const idleUnload: Scenario = {
  name: 'idle-unload',
  summary: `unsubscribe → thread/closed for ${REPEATS} idle threads with a rollout, no lock held, unload delay 0; the unsubscribe reply as the floor`,
  cases: () => SINGLE_CASE,
  async run(ctx) {
    const { rec } = ctx;
    const closedAfter = new LatencyHistogram();
    const replyAfter = new LatencyHistogram();
    await withServer(ctx, { rootConfig: UNLOAD_NOW }, async (client) => {
      for (let r = 0; r < REPEATS; r += 1) {
        const threadId = await threadWithOneTurn(client, `hello ${r}`);
        // Register before sending: the close may arrive before the unsubscribe's reply.
        const closed = client.waitFor('thread/closed', threadId, DEADLINE_MS);
        const sentAt = performance.now();
        const { result, at } = await client.requestTimed('thread/unsubscribe', { threadId });
        rec.check(result.status === 'unsubscribed', `unsubscribe: ${JSON.stringify(result)}`);
        replyAfter.recordMs(at - sentAt);
        closedAfter.recordMs((await closed).at - sentAt);
        ctx.progress((r + 1) / REPEATS);
      }
    });
    rec.latency('unsubscribe→closed', closedAfter);
    rec.latency('unsubscribe→reply (floor)', replyAfter);
  },
};
