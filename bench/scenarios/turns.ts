// Turn latency against the mock model on loopback, from turn/start sent to turn/completed read.
//   turn-sequential: one thread, `warmupTurns` unmeasured, then `turns` one after another.
//   turn-concurrent: `turnThreads` threads, one one-message turn each, every turn/start written
//                    at once: the makespan (first send → last completion) and each turn's latency.
// Both run once per --lock-backend: a lockfile home fdatasyncs every append batch before the
// turn completes (rollout-appender.ts), a flock home does not.
import { performance } from 'node:perf_hooks';
import type { AppServerClient } from '../lib/app-server-client.js';
import { LatencyHistogram } from '../lib/histogram.js';
import type { WriterLockBackendKind } from '../../src/main/config/lock-backend-config.js';
import { LOCKFILE_CONFIG } from './lock-case.js';
import { perLockBackend, textInput, withServer, type Scenario } from './scenario.js';

/** A mock turn takes milliseconds; this only bounds a stuck one. */
const TURN_DEADLINE_MS = 30_000;

/** One turn on `threadId`; resolves with start→completed ms and the final status. */
async function timedTurn(client: AppServerClient, threadId: string, text: string): Promise<{ ms: number; status: string }> {
  // Wait first, send second: the completion may arrive before the turn/start reply.
  const completed = client.waitFor('turn/completed', threadId, TURN_DEADLINE_MS);
  const sentAt = performance.now();
  await client.request('turn/start', { threadId, input: textInput(text) }, TURN_DEADLINE_MS);
  const { params, at } = await completed;
  return { ms: at - sentAt, status: String(params.turn?.status) };
}

/** The server options selecting `backend` (flock when absent: the home's default). */
function backendOptions(backend: WriterLockBackendKind | undefined): { rootConfig?: string } {
  return backend === 'lockfile' ? { rootConfig: LOCKFILE_CONFIG } : {};
}

export const turnSequential: Scenario = {
  name: 'turn-sequential',
  summary: 'turn/start → turn/completed on one thread, one turn after another',
  cases: perLockBackend,
  async run(ctx, { lockBackend }) {
    const { rec, params } = ctx;
    await withServer(ctx, backendOptions(lockBackend), async (client) => {
      const { thread } = await client.request('thread/start', {});
      for (let i = 0; i < params.warmupTurns; i += 1) await timedTurn(client, thread.id, `warm-up ${i}`);
      const histogram = new LatencyHistogram();
      const raw: number[] = [];
      let failed = 0;
      for (let i = 0; i < params.turns; i += 1) {
        const { ms, status } = await timedTurn(client, thread.id, `turn ${i}`);
        histogram.recordMs(ms);
        raw.push(ms);
        if (status !== 'completed') failed += 1;
        ctx.progress((i + 1) / params.turns);
      }
      rec.latency('turn', histogram);
      rec.figure('turns failed', failed, 'count');
      rec.check(failed === 0, `${failed} turns did not complete`);
      rec.raw('turnMs', raw);
    });
  },
};

export const turnConcurrent: Scenario = {
  name: 'turn-concurrent',
  summary: 'N threads, one one-message turn each, all sent at once: makespan and per-turn latency',
  cases: perLockBackend,
  async run(ctx, { lockBackend }) {
    const { rec, params } = ctx;
    await withServer(ctx, backendOptions(lockBackend), async (client) => {
      const threads = await Promise.all(
        Array.from({ length: params.turnThreads }, async () => (await client.request('thread/start', {})).thread.id as string),
      );
      client.clearBuffer();
      const completions = threads.map((threadId) => client.waitFor('turn/completed', threadId, TURN_DEADLINE_MS));
      const startedAt = performance.now();
      const sentAt: number[] = [];
      const replies = threads.map((threadId, i) => {
        sentAt.push(performance.now());
        return client.request('turn/start', { threadId, input: textInput(`concurrent ${i}`) }, TURN_DEADLINE_MS);
      });
      await Promise.all(replies);
      const done = await Promise.all(completions);
      const latencies = done.map((arrival, i) => arrival.at - sentAt[i]!);
      const histogram = new LatencyHistogram();
      for (const ms of latencies) histogram.recordMs(ms);
      const failed = done.filter((d) => d.params.turn?.status !== 'completed').length;
      rec.figure('makespan', Math.max(...done.map((d) => d.at)) - startedAt, 'ms');
      rec.latency('turn', histogram);
      rec.figure('turns failed', failed, 'count');
      rec.check(failed === 0, `${failed} turns did not complete`);
      rec.raw('turnMs', latencies);
    });
  },
};
