// `probe-floor`: how far an idle server's cheapest answer is from the machine's floor. The
// lock scenarios' probe (`thread/loaded/list`, open loop, one every `--interval-ms`) runs for
// `--hold-ms` against the server, idle, and against a bare Node line echo spawned the same
// way (bare-echo.ts), alternating echo, server, echo, server, so both see the same load. On a
// small machine most of a round trip is two processes waking each other: the figure to read is
// the server's distance above the echo, not its distance above zero.
//
// Before that, each process is probed every START_INTERVAL_MS from its first reply on, for
// START_WINDOW_MS: a host starts its worker pool just after its first request, and a request
// sent meanwhile waits for whatever of that start holds the main thread (`as the pool starts`).
import type { AppServerClient } from '../lib/app-server-client.js';
import { withBareEcho } from '../lib/bare-echo.js';
import { LatencyHistogram } from '../lib/histogram.js';
import { ListProbe } from '../lib/list-probe.js';
import { SINGLE_CASE, withServer, type Scenario } from './scenario.js';

const ROUNDS = 2;
/** A fresh server warms its pool just after its first request: the idle probe starts once that is over. */
const SETTLE_MS = 500;
const START_WINDOW_MS = 400;
const START_INTERVAL_MS = 2;

type Probed = Pick<AppServerClient, 'requestTimed'>;

async function probeFor(client: Probed, intervalMs: number, durationMs: number, into: LatencyHistogram): Promise<void> {
  const probe = new ListProbe(client, intervalMs);
  probe.start();
  await new Promise((resolve) => setTimeout(resolve, durationMs));
  for (const sample of await probe.stop()) if (sample.at !== null) into.recordMs(sample.at - sample.sentAt);
}

/** The start window, then the idle probe once the start has settled. */
async function probeFromStart(client: Probed, intervalMs: number, durationMs: number, starting: LatencyHistogram, idle: LatencyHistogram): Promise<void> {
  await probeFor(client, START_INTERVAL_MS, START_WINDOW_MS, starting);
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  await probeFor(client, intervalMs, durationMs, idle);
}

export const probeFloor: Scenario = {
  name: 'probe-floor',
  summary: `thread/loaded/list every --interval-ms for --hold-ms against the idle server and against a bare Node line echo, interleaved; before that, every ${START_INTERVAL_MS} ms through each one's first ${START_WINDOW_MS} ms (the pool's start)`,
  cases: () => SINGLE_CASE,
  async run(ctx) {
    const { rec, params } = ctx;
    const server = new LatencyHistogram();
    const echo = new LatencyHistogram();
    const serverStarting = new LatencyHistogram();
    const echoStarting = new LatencyHistogram();
    for (let round = 0; round < ROUNDS; round += 1) {
      await withBareEcho((bare) => probeFromStart(bare, params.intervalMs, params.holdMs, echoStarting, echo));
      ctx.progress((round + 0.5) / ROUNDS);
      await withServer(ctx, {}, (client) => probeFromStart(client, params.intervalMs, params.holdMs, serverStarting, server));
      ctx.progress((round + 1) / ROUNDS);
    }
    rec.check(server.count > 0 && echo.count > 0 && serverStarting.count > 0 && echoStarting.count > 0, 'no probe was answered');
    rec.latency('loaded/list, idle server', server);
    rec.latency('bare node echo (the floor)', echo);
    rec.latency('loaded/list as the pool starts', serverStarting);
    rec.latency('bare node echo as it starts (floor)', echoStarting);
  },
};
