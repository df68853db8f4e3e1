// `thread-host bench` end to end against this host: the seed scenario and a tiny
// resume-under-lock (K=2, short hold) through the built CLI, checking the report's structure
// and pass flags. Timings are the bench's business, not this test's.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import type { BenchReport } from '../../bench/lib/bench-report.js';
import { evaluateGoals, measuredGoals } from '../../bench/lib/goals.js';
import type { HandoffLedger } from '../../bench/lib/handoff-ledger.js';
import { CLI } from '../helpers/test-server.js';

const out = mkdtempSync(join(tmpdir(), 'thread-host-bench-e2e-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** Runs the CLI to completion (or kills it at `timeoutMs`); stdout, stderr and exit code. */
function runCli(args: string[], timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

test('bench seed + resume-under-lock K=2 passes and writes a complete report', { timeout: 45_000 }, async () => {
  const { code, stdout, stderr } = await runCli(['bench', 'seed', 'resume-under-lock', '--k', '2', '--hold-ms', '300', '--out', out], 40_000);
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' }); // stderr is not a TTY: no progress bar

  const lines = stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(lines.map((l) => [l.scenario, l.case, l.server, l.run, l.pass])).toEqual([
    ['seed', '', 'thread-host', 1, true],
    ['resume-under-lock', 'K=2', 'thread-host', 1, true],
  ]);
  expect(stdout).toContain('| seed |  | pass | runs ↑ | 1/1 |');
  expect(stdout).toContain(`report: ${join(out, 'report.html')}`);

  const report = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as BenchReport;
  expect(Object.keys(report)).toEqual([
    'tool', 'formatVersion', 'startedAt', 'finishedAt', 'argv', 'environment', 'servers', 'scenarios', 'runs', 'params', 'results', 'summary', 'goals', 'pass',
  ]);
  expect([report.tool, report.formatVersion, report.pass, report.runs]).toEqual(['thread-host bench', 1, true, 1]);
  // One server, and no goal on K=2: the seed's goal is a ratio to the reference.
  expect([report.goals!.length, measuredGoals(report.goals!)]).toEqual([evaluateGoals([]).length, []]);
  expect(report.environment.nodeVersion).toBe(process.version);
  expect(report.environment.cpuCount).toBeGreaterThan(0);
  expect(report.servers.map((s) => [s.name, s.argv.slice(1)])).toEqual([['thread-host', [CLI, 'app-server', '--listen', 'stdio://']]]);
  expect(report.servers[0]!.userAgent).toMatch(/^codex-app-server-tests\/\S+ /);
  expect(report.params).toMatchObject({ k: [2], holdMs: 300, intervalMs: 15 });

  const [seed, locked] = report.results;
  expect(seed).toMatchObject({ scenario: 'seed', pass: true, failures: [], timeline: null });
  expect(Object.keys(seed!.figures)).toEqual(['unsubscribe→closed', 'loaded/list under lock', 'release→resumed']);
  expect(locked).toMatchObject({ scenario: 'resume-under-lock', case: 'K=2', pass: true, failures: [] });
  expect(Object.keys(locked!.figures).sort()).toEqual(
    [
      'unsubscribe→all closed', 'lock files after close', 'release→all resumed', 'resumed during hold', 'resumed ok',
      'lock files after resume', 'list longest gap', 'list answered during hold', 'list failed', 'bench client stall max', 'lock files after exit',
    ].sort(),
  );
  expect([locked!.figures['resumed ok']!.value, locked!.figures['list failed']!.value, locked!.figures['lock files after exit']!.value]).toEqual([2, 0, 0]);
  expect(locked!.latency['loaded/list during hold']!.count).toBeGreaterThan(0);
  // The floor: the same probe for as long as the hold (300 ms here, one every 15 ms), before it.
  expect(locked!.latency['loaded/list before the hold (floor)']!.count).toBeGreaterThan(10);
  expect(locked!.timeline!.holds).toHaveLength(1);
  expect(locked!.timeline!.samples.length).toBeGreaterThan(locked!.latency['loaded/list during hold']!.count);

  expect(report.summary.filter((r) => r.figure === 'pass').map((r) => [r.scenario, r.values, r.runs])).toEqual([
    ['seed', [1], [1]],
    ['resume-under-lock', [1], [1]],
  ]);
  expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain('resume-under-lock K=2: thread/loaded/list latency over time');
  expect(existsSync(join(out, 'table.md'))).toBe(true);
});

test('bench shell: echo hi per turn, sandboxed and not, and 2 threads at once, each run where it should be', { timeout: 60_000 }, async () => {
  const dir = join(out, 'shell');
  const { code, stdout, stderr } = await runCli(['bench', 'shell', '--turns', '2', '--warmup', '0', '--turn-threads', '2', '--out', dir], 55_000);
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  const report = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as BenchReport;
  expect(report.results.map((r) => [r.case, r.pass, r.failures])).toEqual([
    ['workspace-write', true, []], ['danger-full-access', true, []], ['K=2 workspace-write', true, []], ['K=2 danger-full-access', true, []],
  ]);
  const [sandboxed, open, concurrent] = report.results;
  expect(Object.keys(sandboxed!.latency)).toEqual(['call → item/started', 'call → first outputDelta', 'call → item/completed']);
  expect(sandboxed!.latency['call → item/completed']!.count).toBe(2);
  // The namespace probe: a sandboxed command has a network of its own, an unsandboxed one not.
  expect([sandboxed!.figures['command in a network namespace of its own']!.value, open!.figures['command in a network namespace of its own']!.value]).toEqual([1, 0]);
  expect([sandboxed!.figures['commands with no outputDelta']!.value, concurrent!.figures['model requests']!.value]).toEqual([0, 4]);
  expect(stdout).toContain('| shell | K=2 workspace-write | makespan | ms ↓ |');
});

test('bench refuses an unknown scenario and a bad flag with exit code 2', async () => {
  expect(await runCli(['bench', 'frobnicate'], 10_000)).toEqual({
    code: 2,
    stdout: '',
    stderr:
      "thread-host bench: unknown scenario 'frobnicate' (known: seed, idle-unload, probe-floor, locked-unload, resume-under-lock, start-under-lock, churn, turn-sequential, turn-concurrent, tools, shell, mcp-threads, cold-start, full-host, scale, soak, handoff, fanout, huge-line, thread-list, stored-read, takeover, forwarding, all, under-lock, turns)\nRun 'thread-host bench --help' for usage.\n",
  });
  expect(await runCli(['bench', '--k', '0'], 10_000)).toEqual({
    code: 2,
    stdout: '',
    stderr: "thread-host bench: --k: expected a positive integer, got '0'\nRun 'thread-host bench --help' for usage.\n",
  });
  expect(await runCli(['bench', 'handoff', '--mix'], 10_000)).toEqual({
    code: 2,
    stdout: '',
    stderr: "thread-host bench: --mix needs --compare: it mixes server A and server B on one home\nRun 'thread-host bench --help' for usage.\n",
  });
  expect(await runCli(['bench', 'seed', '--compare', 'node a.js', '--compare', 'node b.js'], 10_000)).toEqual({
    code: 2,
    stdout: '',
    stderr: "thread-host bench: --compare was given more than once; it takes one value\nRun 'thread-host bench --help' for usage.\n",
  });
  expect(await runCli(['bench', 'handoff', 'seed', '--mix', '--compare', 'x'], 10_000)).toEqual({
    code: 2,
    stdout: '',
    stderr: "thread-host bench: --mix applies only to handoff, not to seed\nRun 'thread-host bench --help' for usage.\n",
  });
});

test('bench handoff: 3 processes race for 2 threads, 5 rounds, one killed, with no violation', { timeout: 30_000 }, async () => {
  const dir = join(out, 'handoff');
  // The kill comes 50 ms into the race, which lasts longer: each thread's 15 handoffs run one after another.
  const args = ['bench', 'handoff', '--processes', '3', '--threads', '2', '--rounds', '5', '--kill-every', '0.05', '--max-kills', '1', '--out', dir];
  const { code, stdout, stderr } = await runCli(args, 25_000);
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  expect(stdout).toContain('| handoff |  | violations | count ↓ | 0 |');

  const report = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as BenchReport;
  const [result] = report.results;
  expect([report.results.length, result!.scenario, result!.pass, result!.failures]).toEqual([1, 'handoff', true, []]);
  expect(report.params).toMatchObject({ processes: 3, threads: 2, rounds: 5, killEveryMs: 50, maxKills: 1, historyMode: 'paginated' });
  expect(Object.keys(result!.figures).sort()).toEqual(
    [
      'lock table samples', 'lock table samples with a writer', 'handoffs per s', 'resume tries per acquisition', "Jain's fairness index",
      'turn share min', 'turn share max', 'longest starvation', 'loaded/list p99, worst process', 'bench client stall max', 'kills', 'killed process gone, max', 'replacement ready after kill, max',
      'violations', 'turns acknowledged', 'turns cut by kills',
      ...(result!.figures['recovery after kill, max'] === undefined ? [] : ['recovery after kill, max']),
    ].sort(),
  );
  expect(Object.keys(result!.latency)).toEqual([
    'bare node echo during the race (the floor)', 'acquisition wait', 'loaded/list p0 thread-host', 'loaded/list p1 thread-host', 'loaded/list p2 thread-host',
  ]);
  // Probed through the whole race, one every 15 ms, like each server.
  expect(result!.latency['bare node echo during the race (the floor)']!.count).toBeGreaterThan(0);
  const kills = result!.raw.kills as Array<{ slot: number }>;
  expect([kills.length, result!.figures.kills!.value, result!.figures.violations!.value, result!.raw.violations]).toEqual([1, 1, 0, []]);
  // Two seed turns and 30 handoffs; a kill between a turn's completion and its thread/closed redoes that handoff.
  expect([32, 33]).toContain(result!.figures['turns acknowledged']!.value);
  expect(result!.latency['acquisition wait']!.count).toBeGreaterThanOrEqual(30);
  expect(result!.figures['lock table samples with a writer']!.value).toBeGreaterThan(0);
  // A passing run removes its home.
  expect(existsSync(result!.raw.home as string)).toBe(false);
  expect(readFileSync(join(dir, 'report.html'), 'utf8')).toContain('handoff: acquisition wait (first try → acquired) over time, per process');
});

test('bench handoff --verify-home catches a turn cut out of a kept home\'s rollout, naming thread, turn and process', { timeout: 30_000 }, async () => {
  const first = await runCli(['bench', 'handoff', '--processes', '2', '--threads', '1', '--rounds', '2', '--keep-home', '--out', join(out, 'kept')], 25_000);
  expect(first.code).toBe(0);
  const home = /home kept for inspection: (\S+)/.exec(first.stderr)![1]!;
  try {
    const ledger = JSON.parse(readFileSync(join(home, 'handoff-ledger.json'), 'utf8')) as HandoffLedger;
    const [rollout] = readdirSync(join(home, 'sessions'), { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.jsonl'));
    const path = join(home, 'sessions', rollout!);
    // Plant the fault: the last turn of the thread (the last one sent) never reached the rollout.
    const lines = readFileSync(path, 'utf8').split('\n');
    const lastStart = lines.findLastIndex((line) => line.includes('"type":"task_started"'));
    writeFileSync(path, lines.slice(0, lastStart).join('\n') + '\n');
    const last = ledger.sent[ledger.sent.length - 1]!;
    expect([ledger.threads.length, ledger.sent.length, last.outcome]).toEqual([1, 5, 'acknowledged']);

    const verified = await runCli(['bench', 'handoff', '--verify-home', home, '--out', join(out, 'verified')], 25_000);
    expect(verified.code).toBe(1);
    const report = JSON.parse(readFileSync(join(out, 'verified', 'results.json'), 'utf8')) as BenchReport;
    expect(report.results.map((r) => [r.scenario, r.pass, r.failures])).toEqual([
      ['handoff', false, [`thread ${last.threadId}: acknowledged turn ${last.turnId} (${last.process}) missing as read by thread-host`]],
    ]);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test('bench handoff stopped by SIGTERM to the CLI leaves no server running and no home behind', { timeout: 30_000 }, async () => {
  // A temp dir of its own, so the homes this bench creates are the only ones looked at.
  const tmp = mkdtempSync(join(tmpdir(), 'thread-host-bench-sigterm-'));
  try {
    const child = spawn(process.execPath, [CLI, 'bench', 'handoff', '--rounds', '1000', '--out', join(out, 'sigterm')], { stdio: 'ignore', env: { ...process.env, TMPDIR: tmp } });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // Racing: the home has rollouts and four servers carry it in their environment.
    await waitUntil(() => homeProcesses(tmp).length >= 4 && readdirSync(tmp).some((home) => existsSync(join(tmp, home, 'sessions'))), 20_000);
    child.kill('SIGTERM');
    expect(await exited).toBe(130);
    expect([homeProcesses(tmp), readdirSync(tmp)]).toEqual([[], []]);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

/** Pids of processes whose CODEX_HOME lies under `dir` (the bench's servers set it to their home). */
function homeProcesses(dir: string): number[] {
  return readdirSync('/proc').filter((name) => /^\d+$/.test(name)).flatMap((pid) => {
    try {
      return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').some((entry) => entry.startsWith(`CODEX_HOME=${dir}/`)) ? [Number(pid)] : [];
    } catch {
      return []; // gone, or not ours to read
    }
  });
}

async function waitUntil(condition: () => boolean, deadlineMs: number): Promise<void> {
  const until = Date.now() + deadlineMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`condition not met within ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('bench --lock-backend both runs each lock case on flock and lockfile side by side, and both pass', { timeout: 45_000 }, async () => {
  const dir = join(out, 'both');
  const { code, stdout, stderr } = await runCli(['bench', 'resume-under-lock', '--k', '2', '--hold-ms', '300', '--lock-backend', 'both', '--out', dir], 40_000);
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  const lines = stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(lines.map((l) => [l.scenario, l.case, l.pass])).toEqual([
    ['resume-under-lock', 'K=2 flock', true],
    ['resume-under-lock', 'K=2 lockfile', true],
  ]);
});

test('bench --lock-backend refuses anything but flock, lockfile or both', async () => {
  const { code, stderr } = await runCli(['bench', '--lock-backend', 'nfs'], 10_000);
  expect({ code, stderr }).toEqual({ code: 2, stderr: "thread-host bench: --lock-backend: expected flock, lockfile or both, got 'nfs'\nRun 'thread-host bench --help' for usage.\n" });
});

test('bench huge-line runs both kinds of huge line over WebSocket and reports the probe and the huge lines', { timeout: 60_000 }, async () => {
  const dir = join(out, 'huge-line');
  const { code, stdout, stderr } = await runCli(['bench', 'huge-line', '--huge-mb', '1', '--huge-lines', '2', '--out', dir], 55_000);
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  const lines = stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { case: string; pass: boolean; latency: Record<string, { count: number }> });
  expect(lines.map((l) => [l.case, l.pass, Object.keys(l.latency), l.latency['huge line reply']!.count])).toEqual([
    ['1 MB turn/start', true, ['loaded/list during huge lines', 'loaded/list idle', 'huge line reply', 'huge turn completed'], 2],
    ['1 MB loaded/list', true, ['loaded/list during huge lines', 'loaded/list idle', 'huge line reply'], 2],
  ]);
});

test('bench scale --scale-rounds 2 loads and unloads every thread twice and reports memory per round', { timeout: 60_000 }, async () => {
  const dir = join(out, 'scale');
  const args = ['bench', 'scale', '--scale-threads', '40', '--scale-reads', '5', '--scale-settle-s', '1', '--scale-rounds', '2', '--out', dir];
  const { code, stdout, stderr } = await runCli(args, 55_000);
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  const [result] = (JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as BenchReport).results;
  expect(result).toMatchObject({ scenario: 'scale', pass: true, failures: [] });
  expect(Object.keys(result!.figures)).toEqual([
    'threads loaded', 'load all', 'RSS before', 'RSS loaded', 'RSS per thread', 'list full returned', 'list paged walk', 'unload all', 'RSS after unload',
    'RSS 1 s after unload', 'settled RSS / RSS before', 'settled anonymous RSS / before', 'file RSS added by the run', 'RSS settled after round 2',
    'settled RSS, last round / first', 'overloaded retries',
  ]);
  const figure = (name: string): number => result!.figures[name]!.value;
  expect([figure('threads loaded'), figure('list full returned'), figure('overloaded retries')]).toEqual([40, 40, 0]);
  // Each figure is kept to three significant digits, at most 0.5% off (half a unit in the third
  // digit of a value from 100 up): the ratio, and the quotient of the two rounded figures, are
  // each that close to the true ratio, so within 1.5% of each other. A fixed number of decimals
  // (as before) could fail by chance.
  const quotient = figure('RSS settled after round 2') / figure('RSS 1 s after unload');
  expect(Math.abs(figure('settled RSS, last round / first') / quotient - 1)).toBeLessThan(0.0151);
  expect(stdout).toContain('| scale |  | pass | runs ↑ | 1/1 |');
});

test('bench thread-list lists a home of copied rollouts, first and repeated, with the probe beside', { timeout: 60_000 }, async () => {
  const dir = join(out, 'thread-list');
  const { code, stdout, stderr } = await runCli(['bench', 'thread-list', '--list-rollouts', '30', '--list-repeats', '2', '--out', dir], 55_000);
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  const [result] = (JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as BenchReport).results;
  expect(result).toMatchObject({ scenario: 'thread-list', pass: true, failures: [] });
  expect(Object.entries(result!.latency).map(([name, l]) => [name, name.startsWith('thread/list') ? l.count : l.count > 0])).toEqual([
    ['thread/list, first', 1],
    ['thread/list, repeated', 2],
    ['loaded/list during the listings', true],
  ]);
  expect(stdout).toContain('| thread-list |  | pass | runs ↑ | 1/1 |');
});

test('bench stored-read grows a thread\'s rollout and reads it unloaded and resumed, with the probe beside', { timeout: 60_000 }, async () => {
  const dir = join(out, 'stored-read');
  const { code, stdout, stderr } = await runCli(['bench', 'stored-read', '--read-mb', '1', '--read-repeats', '2', '--out', dir], 55_000);
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  const results = (JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as BenchReport).results;
  expect(results.map((r) => [r.scenario, r.case, r.pass, r.failures])).toEqual([
    ['stored-read', 'unloaded', true, []],
    ['stored-read', 'loaded', true, []],
  ]);
  for (const result of results) {
    const resumed = result.case === 'loaded' ? [['loaded/list during the resume', true]] : [];
    expect(Object.entries(result.latency).map(([name, l]) => [name, name.startsWith('loaded/list') ? l.count > 0 : l.count])).toEqual([
      ...resumed,
      ['thread/read with turns', 2],
      ['thread/turns/list, a page', 2],
      ['loaded/list during the reads', true],
    ]);
    expect('thread/resume (cold)' in result.figures).toBe(result.case === 'loaded');
    // Over WebSocket, so the server's own event-loop delay is read from its /metrics.
    expect(['server event-loop delay max, resume', 'server event-loop delay max, reads'].map((name) => name in result.figures)).toEqual([result.case === 'loaded', true]);
    // Grown past 1 MB, turn by turn: the seed's one turn and the copies.
    expect([result.figures['rollout size']!.value >= 1_000, result.figures['turns in the rollout']!.value > 100]).toEqual([true, true]);
  }
  expect(stdout).toContain('| stored-read | loaded | pass | runs ↑ | 1/1 |');
});

test('bench turns --lock-backend both runs each turn scenario on flock and lockfile side by side, and both pass', { timeout: 45_000 }, async () => {
  const dir = join(out, 'turns-both');
  const { code, stdout, stderr } = await runCli(['bench', 'turns', '--turns', '3', '--warmup', '1', '--turn-threads', '4', '--lock-backend', 'both', '--out', dir], 40_000);
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  const lines = stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(lines.map((l) => [l.scenario, l.case, l.pass])).toEqual([
    ['turn-sequential', 'flock', true],
    ['turn-sequential', 'lockfile', true],
    ['turn-concurrent', 'flock', true],
    ['turn-concurrent', 'lockfile', true],
  ]);
});

test('bench --thread-store both runs the turn cases on PostgreSQL beside the files store, and takeover measures a takeover per signal', { timeout: 60_000 }, async () => {
  const dir = join(out, 'postgres');
  const args = ['bench', 'turn-concurrent', 'takeover', '--turn-threads', '4', '--thread-store', 'both', '--takeover-repeats', '1', '--lease-ms', '1000', '--out', dir];
  const { code, stdout, stderr } = await runCli(args, 55_000);
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  const report = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as BenchReport;
  expect(report.results.map((r) => [r.scenario, r.case, r.pass])).toEqual([
    ['turn-concurrent', '', true],
    ['turn-concurrent', 'postgres', true],
    ['takeover', 'SIGKILL', true],
    ['takeover', 'SIGSTOP', true],
  ]);
  const takeovers = report.results.filter((r) => r.scenario === 'takeover');
  expect(takeovers.map((r) => [Object.keys(r.figures), r.figures.lease!.value, r.latency.takeover!.count])).toEqual(
    takeovers.map(() => [['lease', 'slowest takeover − lease', 'earliest takeover − lease'], 1000, 1]),
  );
  // A takeover waits for the lease the owner renewed at most fleet_renew_ms (a quarter of it) before the signal.
  for (const r of takeovers) expect(r.figures['earliest takeover − lease']!.value).toBeGreaterThanOrEqual(-250);
  expect(measuredGoals(evaluateGoals(report.summary)).map((g) => g.goal)).toEqual(['takeover after SIGKILL, slowest, beyond the lease', 'takeover after SIGSTOP, slowest, beyond the lease']);
  expect(stdout).toContain('| turn-concurrent | postgres | pass | runs ↑ | 1/1 |');
});

test('bench forwarding runs turns from a client of the owner and of another host, interleaved, with the echo beside', { timeout: 60_000 }, async () => {
  const dir = join(out, 'forwarding');
  const { code, stderr } = await runCli(['bench', 'forwarding', '--turns', '4', '--warmup', '1', '--out', dir], 55_000);
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  const report = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as BenchReport;
  expect(report.results.map((r) => [r.scenario, r.case, r.pass, r.failures])).toEqual([['forwarding', '', true, []]]);
  const [result] = report.results;
  expect(Object.entries(result!.latency).map(([name, summary]) => [name, summary.count])).toEqual([
    ['turn, direct', 4],
    ['turn, forwarded', 4],
    ['bare node echo (the floor)', 4],
    ['completion to the forwarded subscriber, after the direct one', 4],
  ]);
  expect(Object.keys(result!.figures)).toEqual(['forwarding adds, p50', 'forwarding adds, p99', 'forwarded ÷ direct, p50', 'turns failed']);
  expect(result!.figures['turns failed']!.value).toBe(0);
  expect(result!.figures['forwarding adds, p50']!.value).toBeCloseTo(result!.latency['turn, forwarded']!.p50 - result!.latency['turn, direct']!.p50, 2);
  expect(measuredGoals(evaluateGoals(report.summary)).map((g) => [g.goal, g.floor])).toEqual([['forwarding adds to a turn (p50)', result!.latency['bare node echo (the floor)']!.p50]]);
});

test('bench handoff --thread-store postgres: 3 hosts on one database race for 2 threads, one killed, judged from the rows', { timeout: 60_000 }, async () => {
  const dir = join(out, 'handoff-postgres');
  // The kill comes 50 ms into the race; a thread the killed host held waits for its 1 s lease.
  const args = ['bench', 'handoff', '--thread-store', 'postgres', '--processes', '3', '--threads', '2', '--rounds', '5', '--kill-every', '0.05', '--max-kills', '1', '--lease-ms', '1000', '--out', dir];
  const { code, stderr } = await runCli(args, 55_000);
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  const report = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as BenchReport;
  const [result] = report.results;
  expect([report.results.length, result!.scenario, result!.case, result!.pass, result!.failures]).toEqual([1, 'handoff', 'postgres', true, []]);
  expect(Object.keys(result!.figures).sort()).toEqual(
    [
      'handoffs per s', 'resume tries per acquisition', "Jain's fairness index", 'acquisition share min', 'acquisition share max', 'longest starvation',
      'loaded/list p99, worst process', 'bench client stall max', 'kills', 'replacement ready after kill, max', 'violations', 'turns acknowledged', 'turns cut by kills',
      ...(result!.figures["killed host's thread acquired again, max"] === undefined ? [] : ["killed host's thread acquired again, min", "killed host's thread acquired again, max"]),
    ].sort(),
  );
  expect([result!.figures.kills!.value, result!.figures.violations!.value, result!.raw.violations]).toEqual([1, 0, []]);
  // Two seed turns and 30 handoffs; a kill between a turn's completion and its thread/closed redoes that handoff.
  expect([32, 33]).toContain(result!.figures['turns acknowledged']!.value);
  // Another host takes it no sooner than the lease after the killed host's last renewal (a quarter of it).
  const acquiredAgain = result!.figures["killed host's thread acquired again, min"];
  if (acquiredAgain !== undefined) expect(acquiredAgain.value).toBeGreaterThanOrEqual(750);
  expect(measuredGoals(evaluateGoals(report.summary)).map((g) => g.goal)).toEqual(['handoff on PostgreSQL: violations (the rows)', "handoff on PostgreSQL: Jain's fairness index of acquisitions"]);
});

test('bench fanout --thread-store postgres spreads clients over 3 hosts, subscribed through forwarding, and reports each host', { timeout: 60_000 }, async () => {
  const dir = join(out, 'fanout-fleet');
  const args = ['bench', 'fanout', '--thread-store', 'postgres', '--clients', '6', '--fanout-threads', '3', '--subscriptions', '2', '--fanout-rounds', '2', '--fanout-s', '1', '--turn-rate', '0', '--out', dir];
  const { code, stderr } = await runCli(args, 55_000);
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  const report = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as BenchReport;
  expect(report.results.map((r) => [r.scenario, r.case, r.pass, r.failures])).toEqual([['fanout', '3 hosts saturated', true, []]]);
  const [result] = report.results;
  expect(Object.keys(result!.latency)).toEqual([
    'delivery', 'probe', 'probe from a thread of its own', 'bare node ws echo from a thread of its own (the floor)', 'delivery, clients of host 0', 'delivery, clients of host 1', 'delivery, clients of host 2', 'probe, host 0', 'probe, host 1', 'probe, host 2',
  ]);
  // Client i on host i mod 3 subscribes to threads 2i and 2i+1 mod 3, thread t owned by host t: 8 of its 12 subscriptions are forwarded.
  expect([result!.figures['subscriptions through a peer link']!.value, result!.figures['events to non-subscribers']!.value, result!.figures['probe errors']!.value]).toEqual([8, 0, 0]);
  const perHost = [0, 1, 2].reduce((sum, h) => sum + result!.latency[`delivery, clients of host ${h}`]!.count, 0);
  expect(perHost).toBe(result!.latency.delivery!.count);
});

test('bench --thread-store refuses anything but files, postgres or both', async () => {
  const { code, stderr } = await runCli(['bench', '--thread-store', 'sqlite'], 10_000);
  expect({ code, stderr }).toEqual({ code: 2, stderr: "thread-host bench: --thread-store: expected files, postgres or both, got 'sqlite'\nRun 'thread-host bench --help' for usage.\n" });
});
