// `thread-host bench` end to end against this host: the seed scenario and a tiny
// resume-under-lock (K=2, short hold) through the built CLI, checking the report's structure
// and pass flags. Timings are the bench's business, not this test's.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import type { BenchReport } from '../../bench/lib/bench-report.js';
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
  expect([report.tool, report.formatVersion, report.pass, report.goals, report.runs]).toEqual(['thread-host bench', 1, true, null, 1]);
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
  expect(locked!.timeline!.holds).toHaveLength(1);
  expect(locked!.timeline!.samples.length).toBeGreaterThan(locked!.latency['loaded/list during hold']!.count);

  expect(report.summary.filter((r) => r.figure === 'pass').map((r) => [r.scenario, r.values, r.runs])).toEqual([
    ['seed', [1], [1]],
    ['resume-under-lock', [1], [1]],
  ]);
  expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain('resume-under-lock K=2: thread/loaded/list latency over time');
  expect(existsSync(join(out, 'table.md'))).toBe(true);
});

test('bench refuses an unknown scenario and a bad flag with exit code 2', async () => {
  expect(await runCli(['bench', 'frobnicate'], 10_000)).toEqual({
    code: 2,
    stdout: '',
    stderr:
      "thread-host bench: unknown scenario 'frobnicate' (known: seed, locked-unload, resume-under-lock, start-under-lock, churn, turn-sequential, turn-concurrent, cold-start, scale, soak, fanout, all, under-lock, turns)\nRun 'thread-host bench --help' for usage.\n",
  });
  expect(await runCli(['bench', '--k', '0'], 10_000)).toEqual({
    code: 2,
    stdout: '',
    stderr: "thread-host bench: --k: expected a positive integer, got '0'\nRun 'thread-host bench --help' for usage.\n",
  });
});
