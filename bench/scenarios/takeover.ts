// takeover (PostgreSQL thread store only): how long a thread stays unwritable after its host
// dies (SIGKILL) or freezes (SIGSTOP). Two hosts on one database with fleet_lease_ms =
// --lease-ms; per repetition a fresh host A starts a thread and completes one turn, is signalled,
// and host B asks thread/resume every few milliseconds until it is granted: the time from the
// signal to the grant is one takeover. It cannot come before A's lease lapses (A renewed it at
// most fleet_renew_ms before the signal), and the goal is lease + 1 s at most, so the
// case also records the slowest takeover minus the lease. A frozen host is woken (SIGCONT) after
// the takeover and must give the thread up: its appends are fenced.
import { performance } from 'node:perf_hooks';
import { AppServerClient } from '../lib/app-server-client.js';
import { benchDatabase, postgresStoreConfig } from '../lib/bench-postgres.js';
import { LatencyHistogram } from '../lib/histogram.js';
import { createHome, removeHome } from '../lib/server-home.js';
import { firstLine, threadWithOneTurn, type CaseContext, type Scenario } from './scenario.js';

const SIGNALS = ['SIGKILL', 'SIGSTOP'] as const;
/** How often B asks for the thread while A's lease runs. */
const POLL_MS = 20;
/** A takeover later than the lease by this much is a stuck one, not a slow one. */
const GIVE_UP_AFTER_LEASE_MS = 30_000;

async function startHost(ctx: CaseContext, home: string): Promise<AppServerClient> {
  const client = await AppServerClient.start(ctx.server, home);
  ctx.rec.userAgent(client.userAgent);
  return client;
}

/** Asks `host` for `threadId` until it is granted; the moment it was, or null past the deadline. */
async function resumeWhenFree(host: AppServerClient, threadId: string, deadline: number): Promise<number | null> {
  while (performance.now() < deadline) {
    const granted = await host.requestTimed('thread/resume', { threadId }).then(
      ({ at }) => at,
      () => null,
    );
    if (granted !== null) return granted;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return null;
}

export const takeover: Scenario = {
  name: 'takeover',
  summary: 'PostgreSQL store: a host SIGKILLed or SIGSTOPped, the time until another host is granted its thread',
  cases: () => SIGNALS.map((signal) => ({ id: signal, k: 0 })),
  async run(ctx, { id }) {
    const { rec, params } = ctx;
    const signal = id as (typeof SIGNALS)[number];
    const renewMs = Math.max(100, Math.floor(params.leaseMs / 4));
    const config = postgresStoreConfig(await benchDatabase(params.postgresUrl), params.leaseMs, renewMs);
    const homes = [createHome(ctx.mock.url, config), createHome(ctx.mock.url, config)] as const;
    const histogram = new LatencyHistogram();
    const raw: number[] = [];
    let taker: AppServerClient | null = null;
    let owner: AppServerClient | null = null;
    try {
      taker = await startHost(ctx, homes[1]);
      for (let i = 0; i < params.takeoverRepeats; i += 1) {
        owner = await startHost(ctx, homes[0]);
        const threadId = await threadWithOneTurn(owner, `takeover ${i}`);
        const signalledAt = performance.now();
        process.kill(owner.pid!, signal);
        const granted = await resumeWhenFree(taker, threadId, signalledAt + params.leaseMs + GIVE_UP_AFTER_LEASE_MS);
        if (granted === null) {
          rec.fail(`takeover ${i} after ${signal}: thread/resume not granted within lease + ${GIVE_UP_AFTER_LEASE_MS} ms`);
          break;
        }
        histogram.recordMs(granted - signalledAt);
        raw.push(granted - signalledAt);
        if (signal === 'SIGSTOP') process.kill(owner.pid!, 'SIGCONT');
        await owner.close(0);
        owner = null;
        ctx.progress((i + 1) / params.takeoverRepeats);
      }
      rec.latency('takeover', histogram);
      rec.figure('lease', params.leaseMs, 'ms', 'none');
      rec.figure('slowest takeover − lease', Math.max(...raw) - params.leaseMs, 'ms');
      rec.figure('earliest takeover − lease', Math.min(...raw) - params.leaseMs, 'ms', 'none');
      rec.raw('takeoverMs', raw);
      const { code, signal: exitSignal } = await taker.close();
      rec.check(code === 0, `server exit ${code ?? exitSignal} after stdin EOF`);
    } catch (error) {
      rec.fail(firstLine(error));
    } finally {
      await owner?.close(0);
      await taker?.close(0);
      for (const home of homes) removeHome(home);
    }
  },
};
