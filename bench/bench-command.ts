// `thread-host bench`: runs the selected scenarios against server A (and B with --compare),
// case by case, run by run, alternating servers (A B A B) so that a machine getting busier
// or quieter biases neither; then prints the table and writes results.json, table.md and
// report.html. Every process it starts is killed before it returns, whatever happened.
import { existsSync } from 'node:fs';
import { startMockModel } from '../src/main/commands/mock-model/mock-model-server.js';
import { buildReport, reportMarkdown, writeReportFiles, type ServerInfo } from './lib/bench-report.js';
import { BENCH_USAGE, BenchUsageError, parseBenchOptions, type BenchPlan } from './lib/bench-options.js';
import { CaseRecorder, type CaseResult } from './lib/case-result.js';
import { killAllChildren, waitUntilDead } from './lib/children.js';
import { captureEnvironment, finishEnvironment } from './lib/environment.js';
import { ProgressBar } from './lib/progress-bar.js';
import { HOST_CLI } from './lib/repo-paths.js';
import { removeLiveHomes } from './lib/server-home.js';
import { stopBenchCluster } from './lib/bench-postgres.js';
import type { ServerCommand } from './lib/server-command.js';
import { selectScenarios } from './scenarios/index.js';
import type { Scenario } from './scenarios/scenario.js';

/** Once the overall deadline has passed and children were killed, a stuck await gets this long. */
const DEADLINE_GRACE_MS = 30_000;

/** Runs the command; resolves with the exit code (0: every case of server A passed). */
export async function runBenchCommand(argv: string[]): Promise<number> {
  let plan: BenchPlan;
  let scenarios: Scenario[];
  try {
    plan = parseBenchOptions(argv);
    scenarios = selectScenarios(plan.scenarioNames);
    const single = scenarios.filter((s) => s.mixes !== true).map((s) => s.name);
    if (plan.mix && single.length > 0) throw new BenchUsageError(`--mix applies only to handoff, not to ${single.join(', ')}`);
  } catch (error) {
    if (!(error instanceof BenchUsageError)) throw error;
    process.stderr.write(`thread-host bench: ${error.message}\nRun 'thread-host bench --help' for usage.\n`);
    return 2;
  }
  if (plan.help) {
    process.stdout.write(BENCH_USAGE + '\n');
    return 0;
  }
  if (plan.servers.some((s) => s.argv.includes(HOST_CLI)) && !existsSync(HOST_CLI)) {
    process.stderr.write(`thread-host bench: ${HOST_CLI} is missing; run 'npm run build' first\n`);
    return 1;
  }

  const stopSignals = onSignals();
  let deadlinePassed = false;
  const watchdog = setTimeout(() => {
    deadlinePassed = true;
    process.stderr.write(`\nthread-host bench: deadline of ${plan.deadlineMs / 1000} s passed; killing every server\n`);
    killAllChildren();
    setTimeout(() => process.exit(124), DEADLINE_GRACE_MS).unref();
  }, plan.deadlineMs);
  watchdog.unref();

  const startedAt = new Date().toISOString();
  const environment = captureEnvironment();
  const results: CaseResult[] = [];
  const entries = runEntries(plan);
  const total = scenarios.reduce((sum, s) => sum + s.cases(plan.params).length, 0) * plan.runs * entries.length;
  const progress = new ProgressBar(total);
  const mock = await startMockModel({ reply: 'Done' });
  try {
    for (const scenario of scenarios) {
      for (const scenarioCase of scenario.cases(plan.params)) {
        for (let run = 1; run <= plan.runs; run += 1) {
          for (const { server, fleet } of entries) {
            if (deadlinePassed) break;
            const rec = new CaseRecorder(scenario.name, scenarioCase.id, server.name, run);
            progress.begin(`${scenario.name} ${scenarioCase.id} ${server.name} run ${run}/${plan.runs}`.replace(/ {2,}/g, ' '));
            try {
              await scenario.run({ server, fleet, mock, params: plan.params, rec, progress: (f) => progress.update(f) }, scenarioCase);
            } catch (error) {
              rec.fail(error);
            }
            const result = rec.finish();
            results.push(result);
            progress.step();
            progress.printLine(JSON.stringify(caseLine(result)));
          }
        }
      }
    }
  } finally {
    clearTimeout(watchdog);
    progress.finish();
    killAllChildren();
    await mock.close();
    stopBenchCluster();
    stopSignals();
  }

  const servers: ServerInfo[] = entries.map(({ server: s }) => ({
    name: s.name,
    argv: s.argv,
    env: s.env,
    userAgent: results.find((r) => r.server === s.name && r.userAgent !== '')?.userAgent ?? '',
  }));
  const report = buildReport({
    startedAt,
    finishedAt: new Date().toISOString(),
    argv,
    environment: finishEnvironment(environment),
    servers,
    scenarios: scenarios.map((s) => ({ name: s.name, summary: s.summary })),
    runs: plan.runs,
    params: plan.params,
    results,
  });
  const paths = writeReportFiles(plan.outDir, report);
  process.stdout.write(`\n${reportMarkdown(report)}\nreport: ${paths.html}\nresults: ${paths.json}\n`);
  // B is the baseline: its failures are reported, but the exit code speaks for A.
  const aPassed = results.filter((r) => r.server === servers[0]!.name).every((r) => r.pass);
  return deadlinePassed ? 124 : aPassed ? 0 : 1;
}

/** What a case runs against: each server alone, or with --mix one entry whose fleet is A and B on one home. */
function runEntries(plan: BenchPlan): Array<{ server: ServerCommand; fleet: ServerCommand[] }> {
  if (!plan.mix) return plan.servers.map((server) => ({ server, fleet: [server] }));
  const [a, b] = plan.servers as [ServerCommand, ServerCommand];
  // The report names the mix `A+B`; its argv shows both commands, separated by a lone '+'.
  const mixed: ServerCommand = { name: `${a.name}+${b.name}`, argv: [...a.argv, '+', ...b.argv], env: { ...a.env, ...b.env } };
  return [{ server: mixed, fleet: [a, b] }];
}

/** The stdout line for one case: everything but raw samples and the timeline. */
function caseLine(r: CaseResult): Record<string, unknown> {
  const figures = Object.fromEntries(Object.entries(r.figures).map(([k, f]) => [k, f.value]));
  return { scenario: r.scenario, case: r.case, server: r.server, run: r.run, pass: r.pass, failures: r.failures, figures, latency: r.latency };
}

/** How long Ctrl-C or SIGTERM waits for the killed servers to be torn down before exiting. */
const DEATH_WAIT_MS = 2_000;

/** Ctrl-C or SIGTERM kills every child and removes the homes in use before exiting; returns the uninstaller. */
function onSignals(): () => void {
  const handler = (): void => {
    waitUntilDead(killAllChildren(), DEATH_WAIT_MS);
    removeLiveHomes();
    stopBenchCluster();
    process.exit(130);
  };
  const last = (): void => void killAllChildren(); // synchronous, so it works in 'exit'
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  process.on('exit', last);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
    process.off('exit', last);
  };
}
