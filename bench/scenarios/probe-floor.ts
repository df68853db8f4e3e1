// `probe-floor`: how far an idle server's cheapest answer is from the machine's floor. The
// lock scenarios' probe (`thread/loaded/list`, open loop, one every `--interval-ms`) runs for
// `--hold-ms` against the server, idle, and against a bare Node line echo spawned the same
// way (bare-echo.ts), alternating echo, server, echo, server, so both see the same load. On a
// small machine most of a round trip is two processes waking each other: the figure to read is
// the server's distance above the echo, not its distance above zero.
import type { AppServerClient } from '../lib/app-server-client.js';
import { withBareEcho } from '../lib/bare-echo.js';
import { LatencyHistogram } from '../lib/histogram.js';
import { ListProbe } from '../lib/list-probe.js';
import { SINGLE_CASE, withServer, type Scenario } from './scenario.js';

const ROUNDS = 2;
/** A fresh server warms its pool just after its first request: probing starts once that is over. */
const SETTLE_MS = 500;

async function probeFor(client: Pick<AppServerClient, 'requestTimed'>, intervalMs: number, durationMs: number, into: LatencyHistogram): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const probe = new ListProbe(client, intervalMs);
  probe.start();
  await new Promise((resolve) => setTimeout(resolve, durationMs));
  for (const sample of await probe.stop()) if (sample.at !== null) into.recordMs(sample.at - sample.sentAt);
}

export const probeFloor: Scenario = {
  name: 'probe-floor',
  summary: 'thread/loaded/list every --interval-ms for --hold-ms against the idle server and against a bare Node line echo, interleaved',
  cases: () => SINGLE_CASE,
  async run(ctx) {
    const { rec, params } = ctx;
    const server = new LatencyHistogram();
    const echo = new LatencyHistogram();
    for (let round = 0; round < ROUNDS; round += 1) {
      await withBareEcho((bare) => probeFor(bare, params.intervalMs, params.holdMs, echo));
      ctx.progress((round + 0.5) / ROUNDS);
      await withServer(ctx, {}, (client) => probeFor(client, params.intervalMs, params.holdMs, server));
      ctx.progress((round + 1) / ROUNDS);
    }
    rec.check(server.count > 0 && echo.count > 0, 'no probe was answered');
    rec.latency('loaded/list, idle server', server);
    rec.latency('bare node echo (the floor)', echo);
  },
};
