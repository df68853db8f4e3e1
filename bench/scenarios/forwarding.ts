// `forwarding` (PostgreSQL store): what a turn costs when the client's host is not the thread's
// owner. Two hosts on one database sharing a fleet secret (bench-fleet.ts); a client of the
// owner (direct) and a client of the other host (forwarded: its requests go over a peer link to
// the owner, its notifications come back the same way) both subscribed to one thread. Turns
// alternate, direct then forwarded, `--turns` of each after `--warmup`, so both see the same
// machine; each is turn/start sent → turn/completed read by the client that sent it. Before the
// next turn both clients have seen the completion, so no late one is taken for the next turn's.
// A bare Node echo (bare-echo.ts) is probed once per pair, interleaved: one round trip between
// two processes, the floor of what one more hop can cost. The goal is on
// `forwarding adds, p50` (forwarded p50 − direct p50).
//
//   client D ── host A (owner) ── database         client F ── host B ──peer link── host A
import { performance } from 'node:perf_hooks';
import { withBareEcho } from '../lib/bare-echo.js';
import { withBenchFleet } from '../lib/bench-fleet.js';
import { LatencyHistogram } from '../lib/histogram.js';
import { WsBenchClient } from '../lib/ws-bench-client.js';
import { SINGLE_CASE, textInput, type Scenario } from './scenario.js';

const TURN_DEADLINE_MS = 30_000;

/** One turn sent by `sender`; resolves with sent → completed at the sender, once `other` has seen it too. */
async function turnSeenByBoth(sender: WsBenchClient, other: WsBenchClient, threadId: string, text: string): Promise<{ ms: number; status: string; otherLagMs: number }> {
  const atSender = sender.waitFor('turn/completed', threadId, TURN_DEADLINE_MS);
  const atOther = other.waitFor('turn/completed', threadId, TURN_DEADLINE_MS);
  const sentAt = performance.now();
  await sender.request('turn/start', { threadId, input: textInput(text) }, TURN_DEADLINE_MS);
  const [mine, theirs] = await Promise.all([atSender, atOther]);
  return { ms: mine.at - sentAt, status: String(mine.params.turn?.status), otherLagMs: theirs.at - mine.at };
}

export const forwarding: Scenario = {
  name: 'forwarding',
  summary: 'PostgreSQL store, two hosts: turns on one thread from a client of its owner and from a client of the other host (forwarded), interleaved, beside a bare Node echo',
  cases: () => SINGLE_CASE,
  async run(ctx) {
    const { rec, params } = ctx;
    await withBenchFleet(ctx, 'forwarding', 2, async ({ hosts }, clients) => {
      const direct = await WsBenchClient.connect(hosts[0]!.url);
      const forwarded = await WsBenchClient.connect(hosts[1]!.url);
      clients.push(direct, forwarded);
      const { thread } = await direct.request('thread/start', {});
      const threadId = String(thread.id);
      // Another host finds a thread in the store once its first turn wrote it.
      const first = direct.waitFor('turn/completed', threadId, TURN_DEADLINE_MS);
      await direct.request('turn/start', { threadId, input: textInput('first') }, TURN_DEADLINE_MS);
      await first;
      await forwarded.request('thread/resume', { threadId, excludeTurns: true }, TURN_DEADLINE_MS);

      const histograms = { direct: new LatencyHistogram(), forwarded: new LatencyHistogram(), echo: new LatencyHistogram(), lag: new LatencyHistogram() };
      const raw = { direct: [] as number[], forwarded: [] as number[] };
      let failed = 0;
      await withBareEcho(async (echo) => {
        for (let i = 0; i < params.warmupTurns + params.turns; i += 1) {
          const d = await turnSeenByBoth(direct, forwarded, threadId, `direct ${i}`);
          const f = await turnSeenByBoth(forwarded, direct, threadId, `forwarded ${i}`);
          const sentAt = performance.now();
          const { at } = await echo.requestTimed('thread/loaded/list', {});
          if (i < params.warmupTurns) continue;
          failed += [d, f].filter((t) => t.status !== 'completed').length;
          histograms.direct.recordMs(d.ms);
          histograms.forwarded.recordMs(f.ms);
          histograms.lag.recordMs(Math.max(0, d.otherLagMs));
          histograms.echo.recordMs(at - sentAt);
          raw.direct.push(d.ms);
          raw.forwarded.push(f.ms);
          ctx.progress((i + 1 - params.warmupTurns) / params.turns);
        }
      });
      const d = histograms.direct.summary();
      const f = histograms.forwarded.summary();
      rec.latency('turn, direct', d);
      rec.latency('turn, forwarded', f);
      rec.latency('bare node echo (the floor)', histograms.echo);
      // The owner's turn/completed, as the other host's client gets it after the owner's client.
      rec.latency('completion to the forwarded subscriber, after the direct one', histograms.lag);
      rec.figure('forwarding adds, p50', f.p50 - d.p50, 'ms');
      rec.figure('forwarding adds, p99', f.p99 - d.p99, 'ms');
      rec.figure('forwarded ÷ direct, p50', f.p50 / d.p50, 'ratio');
      rec.figure('turns failed', failed, 'count');
      rec.check(failed === 0, `${failed} turns did not complete`);
      rec.raw('turnMs', raw);
    });
  },
};
