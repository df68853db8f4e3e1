// `idle-unload`: unsubscribe → `thread/closed` with no lock held by anyone, for an idle thread
// with a materialized rollout and `thread_unload_delay_secs = 0`, repeated on fresh threads.
// Two cases: the unsubscribe right after the thread's turn completed (`at once`), and after the
// host has been quiet for a while (`after 300 ms idle`), when its threads and workers are parked
// and caches are cold, as a client that closes a tab finds it. The unsubscribe's own reply is
// timed too, and the same unsubscribe, after the same wait, sent to a bare Node echo that
// replies and announces the close in its next iteration and does nothing else: the floor of both
// figures on this machine, which the idle case raises well above a warm round trip
// (issue 13, item 2).
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import type { AppServerClient } from '../lib/app-server-client.js';
import { withBareEcho } from '../lib/bare-echo.js';
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
        const { status } = await timedUnsubscribe(client, threadId, closedAfter, replyAfter);
        rec.check(status === 'unsubscribed', `unsubscribe: ${status}`);
        ctx.progress((0.8 * (r + 1)) / repeats);
      }
    });
    rec.latency('unsubscribe→closed', closedAfter);
    rec.latency('unsubscribe→reply', replyAfter);

    const bareClosed = new LatencyHistogram();
    const bareReply = new LatencyHistogram();
    await withBareEcho(async (echo) => {
      for (let r = 0; r < repeats; r += 1) {
        if (idleMs > 0) await sleep(idleMs);
        await timedUnsubscribe(echo, randomUUID(), bareClosed, bareReply);
        ctx.progress(0.8 + (0.2 * (r + 1)) / repeats);
      }
    });
    rec.latency('bare node: unsubscribe→closed (floor)', bareClosed);
    rec.latency('bare node: unsubscribe→reply (floor)', bareReply);
  },
};

/** One unsubscribe, timed to its reply and to the thread's `thread/closed`; returns the reply's status. */
async function timedUnsubscribe(client: AppServerClient, threadId: string, closedAfter: LatencyHistogram, replyAfter: LatencyHistogram): Promise<{ status: unknown }> {
  // Register before sending: the close may arrive before the unsubscribe's reply.
  const closed = client.waitFor('thread/closed', threadId, DEADLINE_MS);
  const sentAt = performance.now();
  const { result, at } = await client.requestTimed('thread/unsubscribe', { threadId });
  replyAfter.recordMs(at - sentAt);
  closedAfter.recordMs((await closed).at - sentAt);
  return { status: result.status };
}
