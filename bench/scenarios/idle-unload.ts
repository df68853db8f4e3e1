// `idle-unload`: unsubscribe → `thread/closed` with no lock held by anyone, for an idle thread
// with a materialized rollout and `thread_unload_delay_secs = 0`, repeated on fresh threads.
// Two cases: the unsubscribe right after the thread's turn completed (`at once`), and after the
// host has been quiet for a while (`after 300 ms idle`), when its threads and workers are parked
// and caches are cold, as a client that closes a tab finds it. The unsubscribe's own reply is
// timed too: one request round trip is the floor the close is measured against (issue 13, item 2).
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { LatencyHistogram } from '../lib/histogram.js';
import { UNLOAD_NOW } from '../lib/server-home.js';
import { threadWithOneTurn, withServer, type Scenario, type ScenarioCase } from './scenario.js';

const DEADLINE_MS = 10_000;
const IDLE_MS = 300;

const CASES: ScenarioCase[] = [
  { id: 'at once', k: 0 },
  { id: `after ${IDLE_MS} ms idle`, k: IDLE_MS },
];

/** Fewer repeats when each one waits: the idle case's figure is about the wake-up, not the count. */
const repeatsFor = (idleMs: number): number => (idleMs === 0 ? 50 : 30);

export const idleUnload: Scenario = {
  name: 'idle-unload',
  summary: `unsubscribe → thread/closed for idle threads with a rollout, no lock held, unload delay 0, at once and after ${IDLE_MS} ms idle; the unsubscribe reply as the floor`,
  cases: () => CASES,
  async run(ctx, scenarioCase) {
    const { rec } = ctx;
    const idleMs = scenarioCase.k;
    const repeats = repeatsFor(idleMs);
    const closedAfter = new LatencyHistogram();
    const replyAfter = new LatencyHistogram();
    await withServer(ctx, { rootConfig: UNLOAD_NOW }, async (client) => {
      for (let r = 0; r < repeats; r += 1) {
        const threadId = await threadWithOneTurn(client, `hello ${r}`);
        if (idleMs > 0) await sleep(idleMs);
        // Register before sending: the close may arrive before the unsubscribe's reply.
        const closed = client.waitFor('thread/closed', threadId, DEADLINE_MS);
        const sentAt = performance.now();
        const { result, at } = await client.requestTimed('thread/unsubscribe', { threadId });
        rec.check(result.status === 'unsubscribed', `unsubscribe: ${JSON.stringify(result)}`);
        replyAfter.recordMs(at - sentAt);
        closedAfter.recordMs((await closed).at - sentAt);
        ctx.progress((r + 1) / repeats);
      }
    });
    rec.latency('unsubscribe→closed', closedAfter);
    rec.latency('unsubscribe→reply (floor)', replyAfter);
  },
};
