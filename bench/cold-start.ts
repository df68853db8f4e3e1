// Spawn → initialize response, in ms, for a fresh home (first start ever: the server creates
// its files) and a reused home (primed once by a server that ran a thread and a turn, then
// restarted REPEATS times). Servers alternate A B A B per repetition so drift hits both.
// Also reports stdin EOF → exit, the other half of a process's life cost.
//   node dist/bench/cold-start.js [--server-cmd CMD] [--compare CMD] [--runs N] [--repeats 15]
import { performance } from 'node:perf_hooks';
import { startMockModel, type MockModel } from '../src/main/mock-model/mock-model-server.js';
import { AppServerClient } from './lib/app-server-client.js';
import { parseBenchOptions, positiveInt } from './lib/bench-options.js';
import { runBench } from './lib/bench-run.js';
import { LatencyHistogram } from './lib/histogram.js';
import { Report } from './lib/report.js';
import type { ServerCommand } from './lib/server-command.js';
import { createHome, removeHome } from './lib/server-home.js';

type HomeKind = 'fresh' | 'reused';

const options = parseBenchOptions(process.argv.slice(2), { repeats: { type: 'string' } }, /*default deadline s*/ 600);
const REPEATS = positiveInt(options.values.repeats, 'repeats', 15);
const report = new Report();

/** One start and stop; resolves with spawn→initialize and EOF→exit in ms. */
async function startStop(server: ServerCommand, home: string): Promise<{ initializeMs: number; exitMs: number }> {
  const client = await AppServerClient.start(server, home);
  const eofAt = performance.now();
  await client.close();
  return { initializeMs: client.initializeMs, exitMs: performance.now() - eofAt };
}

/** Leaves `home` as a used server would: state files, a rollout, a released writer lock. */
async function primeHome(server: ServerCommand, home: string): Promise<void> {
  const client = await AppServerClient.start(server, home);
  try {
    const { thread } = await client.request('thread/start', {});
    const completed = client.waitForNotification('turn/completed', (p) => p.threadId === thread.id);
    await client.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'prime', text_elements: [] }] });
    await completed;
  } finally {
    await client.close();
  }
}

async function measure(mock: MockModel, kind: HomeKind, run: number): Promise<void> {
  const initialize = options.servers.map(() => new LatencyHistogram());
  const exit = options.servers.map(() => new LatencyHistogram());
  const reusedHomes = kind === 'reused' ? options.servers.map(() => createHome(mock.url)) : [];
  try {
    for (const [i, home] of reusedHomes.entries()) await primeHome(options.servers[i]!, home);
    for (let r = 0; r < REPEATS; r += 1) {
      for (const [i, server] of options.servers.entries()) {
        const home = kind === 'reused' ? reusedHomes[i]! : createHome(mock.url);
        try {
          const { initializeMs, exitMs } = await startStop(server, home);
          initialize[i]!.recordMs(initializeMs);
          exit[i]!.recordMs(exitMs);
        } finally {
          if (kind === 'fresh') removeHome(home);
        }
      }
    }
  } finally {
    for (const home of reusedHomes) removeHome(home);
  }
  for (const [i, server] of options.servers.entries()) {
    const s = initialize[i]!.summary();
    report.line({ scenario: 'cold-start', home: kind, server: server.name, run, unit: 'ms', ...s, exit: exit[i]!.summary() });
    for (const metric of ['p50', 'p90', 'max'] as const) report.figure(`cold-start ${kind}`, metric, server.name, s[metric]);
    report.figure(`cold-start ${kind}`, 'exit p50', server.name, exit[i]!.summary().p50);
  }
}

runBench('cold-start', options.deadlineMs, async () => {
  // The servers only read the provider URL at start; the mock makes the primer's turn real.
  const mock = await startMockModel({ reply: 'Done' });
  try {
    for (let run = 1; run <= options.runs; run += 1) {
      await measure(mock, 'fresh', run);
      await measure(mock, 'reused', run);
    }
  } finally {
    await mock.close();
  }
  if (options.servers.length === 2) report.printComparison(options.servers[0]!.name, options.servers[1]!.name);
});
