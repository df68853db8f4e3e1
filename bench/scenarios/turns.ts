// Turn latency against the mock model on loopback, from turn/start sent to turn/completed read.
//   turn-sequential: one thread, `warmupTurns` unmeasured, then `turns` one after another.
//   turn-concurrent: `turnThreads` threads, one one-message turn each, every turn/start written
//                    at once: the makespan (first send → last completion) and each turn's latency.
// Both run once per --lock-backend: a lockfile home fdatasyncs every append batch before the
// turn completes (rollout-appender.ts), a flock home does not; and, with --thread-store
// postgres or both, once on the PostgreSQL store (case `postgres`), where turn-sequential also
// counts the database transactions each turn costs (bench/lib/bench-postgres.ts).
import { performance } from 'node:perf_hooks';
import type { AppServerClient } from '../lib/app-server-client.js';
import { LatencyHistogram } from '../lib/histogram.js';
import { benchDatabase, databaseTransactions, postgresStoreConfig } from '../lib/bench-postgres.js';
import type { PostgresConnection } from '../../src/common/postgres/postgres-connection.js';
import { LOCKFILE_CONFIG } from './lock-case.js';
import { perLockBackendAndStore, textInput, withServer, type Scenario, type ScenarioCase, type ScenarioParams } from './scenario.js';

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

// A lease long enough that its renewals (one per fleet_renew_ms) hardly show in a case's count
// of transactions per turn.
const TURN_CASE_LEASE_MS = 60_000;
const TURN_CASE_RENEW_MS = 20_000;

/** The case's server options (the home's default store and backend when neither is named), and its database on postgres. */
async function caseOptions(params: ScenarioParams, scenarioCase: ScenarioCase): Promise<{ rootConfig?: string; database: PostgresConnection | null }> {
  if (scenarioCase.threadStore === 'postgres') {
    const database = await benchDatabase(params.postgresUrl);
    return { rootConfig: postgresStoreConfig(database, TURN_CASE_LEASE_MS, TURN_CASE_RENEW_MS), database };
  }
  return scenarioCase.lockBackend === 'lockfile' ? { rootConfig: LOCKFILE_CONFIG, database: null } : { database: null };
}

export const turnSequential: Scenario = {
  name: 'turn-sequential',
  summary: 'turn/start → turn/completed on one thread, one turn after another',
  cases: perLockBackendAndStore,
  async run(ctx, scenarioCase) {
    const { rec, params } = ctx;
    const options = await caseOptions(params, scenarioCase);
    await withServer(ctx, options, async (client) => {
      const { thread } = await client.request('thread/start', {});
      for (let i = 0; i < params.warmupTurns; i += 1) await timedTurn(client, thread.id, `warm-up ${i}`);
      const transactionsBefore = options.database === null ? 0 : await databaseTransactions(options.database);
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
      if (options.database !== null) {
        // The first read's own transaction shows in the second.
        const transactions = (await databaseTransactions(options.database)) - transactionsBefore - 1;
        rec.figure('database transactions per turn', transactions / params.turns, 'count');
      }
      rec.figure('turns failed', failed, 'count');
      rec.check(failed === 0, `${failed} turns did not complete`);
      rec.raw('turnMs', raw);
    });
  },
};

export const turnConcurrent: Scenario = {
  name: 'turn-concurrent',
  summary: 'N threads, one one-message turn each, all sent at once: makespan and per-turn latency',
  cases: perLockBackendAndStore,
  async run(ctx, scenarioCase) {
    const { rec, params } = ctx;
    await withServer(ctx, await caseOptions(params, scenarioCase), async (client) => {
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
