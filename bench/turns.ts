// Turn latency against the mock model on loopback, from turn/start sent to turn/completed read.
//   turn-sequential: one thread, WARMUP turns unmeasured, then TURNS turns one after another.
//   turn-concurrent: THREADS threads, one turn each, all turn/starts written at once; reports
//                    the makespan (first send → last completion) and each turn's latency.
// Runs A then B per run (interleaved), each on a fresh home and a fresh server process.
//   node dist/bench/turns.js [--server-cmd CMD] [--compare CMD] [--runs N]
//        [--turns 50] [--warmup 5] [--threads 32] [--delta-chunks 0]
import { performance } from 'node:perf_hooks';
import { startMockModel } from '../src/main/mock-model/mock-model-server.js';
import { AppServerClient } from './lib/app-server-client.js';
import { parseBenchOptions, positiveInt } from './lib/bench-options.js';
import { runBench } from './lib/bench-run.js';
import { LatencyHistogram, roundMs, summarize } from './lib/histogram.js';
import { Report } from './lib/report.js';
import type { ServerCommand } from './lib/server-command.js';
import { createHome, removeHome } from './lib/server-home.js';

/** A mock turn takes milliseconds; this only bounds a stuck one. */
const TURN_DEADLINE_MS = 30_000;

const options = parseBenchOptions(
  process.argv.slice(2),
  { turns: { type: 'string' }, warmup: { type: 'string' }, threads: { type: 'string' }, 'delta-chunks': { type: 'string' } },
  /*default deadline s*/ 600,
);
const TURNS = positiveInt(options.values.turns, 'turns', 50);
const WARMUP = Number(options.values.warmup ?? 5);
const THREADS = positiveInt(options.values.threads, 'threads', 32);
const DELTA_CHUNKS = Number(options.values['delta-chunks'] ?? 0);
const report = new Report();

const textInput = (text: string) => [{ type: 'text', text, text_elements: [] }];

/** One turn on `threadId`; resolves with start→completed ms and the final status. */
async function timedTurn(client: AppServerClient, threadId: string, text: string): Promise<{ ms: number; status: string }> {
  // Wait first, send second: the completion may arrive before the turn/start reply.
  const completed = client.waitForNotification('turn/completed', (p) => p.threadId === threadId, TURN_DEADLINE_MS);
  const sentAt = performance.now();
  await client.request('turn/start', { threadId, input: textInput(text) }, TURN_DEADLINE_MS);
  const { params, at } = await completed;
  return { ms: at - sentAt, status: params.turn?.status as string };
}

async function sequential(client: AppServerClient, server: ServerCommand, run: number): Promise<void> {
  const { thread } = await client.request('thread/start', {});
  for (let i = 0; i < WARMUP; i += 1) await timedTurn(client, thread.id, `warm-up ${i}`);
  const histogram = new LatencyHistogram();
  let failed = 0;
  for (let i = 0; i < TURNS; i += 1) {
    const { ms, status } = await timedTurn(client, thread.id, `turn ${i}`);
    histogram.recordMs(ms);
    if (status !== 'completed') failed += 1;
  }
  const s = histogram.summary();
  report.line({ scenario: 'turn-sequential', server: server.name, run, unit: 'ms', ...s, warmup: WARMUP, failed });
  for (const metric of ['p50', 'p90', 'p99', 'max'] as const) report.figure('turn-sequential', metric, server.name, s[metric]);
}

async function concurrent(client: AppServerClient, server: ServerCommand, run: number): Promise<void> {
  const threads = await Promise.all(
    Array.from({ length: THREADS }, async () => (await client.request('thread/start', {})).thread.id as string),
  );
  client.clearBuffer();
  const completions = threads.map((threadId) =>
    client.waitForNotification('turn/completed', (p) => p.threadId === threadId, TURN_DEADLINE_MS),
  );
  const startedAt = performance.now();
  const sentAt: number[] = [];
  const replies = threads.map((threadId, i) => {
    sentAt.push(performance.now());
    return client.request('turn/start', { threadId, input: textInput(`concurrent ${i}`) }, TURN_DEADLINE_MS);
  });
  await Promise.all(replies);
  const done = await Promise.all(completions);
  const latencies = done.map((arrival, i) => arrival.at - sentAt[i]!);
  const makespanMs = roundMs(Math.max(...done.map((d) => d.at)) - startedAt);
  const failed = done.filter((d) => d.params.turn?.status !== 'completed').length;
  const s = summarize(latencies);
  report.line({ scenario: 'turn-concurrent', server: server.name, run, unit: 'ms', threads: THREADS, makespanMs, ...s, failed });
  report.figure('turn-concurrent', 'makespan', server.name, makespanMs);
  for (const metric of ['p50', 'p99', 'max'] as const) report.figure('turn-concurrent', metric, server.name, s[metric]);
}

runBench('turns', options.deadlineMs, async () => {
  const mock = await startMockModel({ reply: 'Done', deltaChunks: DELTA_CHUNKS });
  try {
    for (let run = 1; run <= options.runs; run += 1) {
      for (const server of options.servers) {
        const home = createHome(mock.url);
        let client: AppServerClient | undefined;
        try {
          client = await AppServerClient.start(server, home);
          await sequential(client, server, run);
          await concurrent(client, server, run);
        } finally {
          await client?.close();
          removeHome(home);
        }
      }
    }
  } finally {
    await mock.close();
  }
  if (options.servers.length === 2) report.printComparison(options.servers[0]!.name, options.servers[1]!.name);
});
