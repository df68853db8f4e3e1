// From case results to the summary table, the goals, and the three report files.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { buildReport, reportMarkdown, writeReportFiles, type BenchReport } from '../../../bench/lib/bench-report.js';
import { CaseRecorder, type CaseResult } from '../../../bench/lib/case-result.js';
import type { Environment } from '../../../bench/lib/environment.js';
import { evaluateGoals, goalsMarkdown, measuredGoals } from '../../../bench/lib/goals.js';
import { markdownTable, summarize } from '../../../bench/lib/summary-table.js';
import type { ScenarioParams } from '../../../bench/scenarios/scenario.js';

/** A resume-under-lock K=8 result with the figures the goals read. */
function lockResult(server: string, run: number, listP99: number, closeMs: number, pass = true): CaseResult {
  const rec = new CaseRecorder('resume-under-lock', 'K=8', server, run);
  rec.latency('loaded/list during hold', { count: 130, p50: listP99 / 4, p90: listP99 / 2, p99: listP99, max: listP99 * 2 });
  rec.figure('release→all resumed', closeMs, 'ms');
  rec.figure('resumed ok', 8, 'count', 'higher');
  rec.timeline({ label: 'resume-under-lock K=8', holds: [[0, 2000]], samples: [[-300, 0.5], [0, 0.6], [15, null], [2100, 0.4]] });
  rec.userAgent(`${server}/1.0`);
  if (!pass) rec.fail('2 of 8 resumes failed: timeout');
  return rec.finish();
}

const ENVIRONMENT: Environment = {
  cpuCount: 2, cpuModel: 'Test CPU', memTotalGiB: 8, nodeVersion: 'v20.0.0', platform: 'linux', osRelease: '6.0',
  loadAverageStart: [1, 1, 1], loadAverageEnd: [2, 2, 2],
};
const PARAMS: ScenarioParams = {
  k: [8], lockBackends: ['flock'], threadStores: ['files'], postgresUrl: null, leaseMs: 2000, takeoverRepeats: 5, holdMs: 2000, intervalMs: 15, turns: 50, warmupTurns: 5, turnThreads: 32, mcpThreads: 100,
  churnClients: 8, churnSeconds: 10,
  scaleThreads: 10_000, scaleBudgetS: 600, scaleReads: 500, scaleSettleS: 30, scaleRounds: 1, listRollouts: 5000, listRepeats: 10, readMb: 20, readRepeats: 5, coldRepeats: 10,
  soakSeconds: 600, soakSampleS: 10,
  processes: 4, threads: 8, rounds: 25, killEveryMs: 0, maxKills: Number.MAX_SAFE_INTEGER, historyMode: 'legacy', handoffBudgetS: 600, keepHome: false, verifyHome: null,
  fanoutClients: 200, fanoutThreads: 20, fanoutSubscriptions: 3, fanoutRounds: 5, fanoutSeconds: 10, fanoutProbeMs: 500, fanoutProbeLimit: 100, fanoutTurnRate: 20, fanoutIdleThreads: 0, hugeLineMb: [5], hugeLines: 10,
};
const RESULTS = [lockResult('host', 1, 1, 40), lockResult('ref', 1, 2000, 180), lockResult('host', 2, 3, 60), lockResult('ref', 2, 2200, 200, false)];

/** A probe-floor result: the bare Node echo the lock scenarios' list goals are read against. */
function floorResult(server: string, run: number, echoP99: number): CaseResult {
  const rec = new CaseRecorder('probe-floor', '', server, run);
  rec.latency('bare node echo (the floor)', { count: 130, p50: echoP99 / 2, p90: echoP99 / 2, p99: echoP99, max: echoP99 });
  return rec.finish();
}
/** RESULTS with the same run's floor: host's bare echo p99 is 1.25 (median of 1 and 1.5). */
const WITH_FLOOR = [...RESULTS, floorResult('host', 1, 1), floorResult('ref', 1, 1.1), floorResult('host', 2, 1.5), floorResult('ref', 2, 1.3)];

function report(results: CaseResult[] = WITH_FLOOR, servers = ['host', 'ref']): BenchReport {
  return buildReport({
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:01:00.000Z',
    argv: ['resume-under-lock', '--k', '8'],
    environment: ENVIRONMENT,
    servers: servers.map((name) => ({ name, argv: [name, 'app-server'], env: {}, userAgent: `${name}/1.0` })),
    scenarios: [{ name: 'resume-under-lock', summary: 'K resumes wait on a held lock' }],
    runs: 2,
    params: PARAMS,
    results,
  });
}

describe('the summary', () => {
  test('is one row per figure with the median over runs per server and the ratio A/B', () => {
    const rows = summarize(RESULTS, ['host', 'ref']);
    expect(rows.map((r) => [r.figure, r.values, r.ratio])).toEqual([
      ['pass', [2, 1], null],
      ['loaded/list during hold p50', [0.5, 525], 0.5 / 525],
      ['loaded/list during hold p90', [1, 1050], 1 / 1050],
      ['loaded/list during hold p99', [2, 2100], 2 / 2100],
      ['loaded/list during hold max', [4, 4200], 4 / 4200],
      ['loaded/list during hold n', [130, 130], 1],
      ['release→all resumed', [50, 190], 50 / 190],
      ['resumed ok', [8, 8], 1],
    ]);
    expect(rows[0]!.runs).toEqual([2, 2]);
  });

  test('prints as a markdown table with units, directions and ratios', () => {
    const rows = summarize(RESULTS, ['host', 'ref']).filter((r) => ['pass', 'release→all resumed', 'loaded/list during hold n'].includes(r.figure));
    expect(markdownTable(rows, ['host', 'ref'])).toBe(
      [
        '| scenario | case | figure | unit | host | ref | host/ref |',
        '|---|---|---|---|---:|---:|---:|',
        '| resume-under-lock | K=8 | pass | runs ↑ | 2/2 | 1/2 | n/a |',
        '| resume-under-lock | K=8 | loaded/list during hold n | count | 130 | 130 | 1 |',
        '| resume-under-lock | K=8 | release→all resumed | ms ↓ | 50 | 190 | 0.26 |',
      ].join('\n'),
    );
  });

  test('with one server has no ratio column', () => {
    const rows = summarize(RESULTS.filter((r) => r.server === 'host'), ['host']).slice(0, 1);
    expect(markdownTable(rows, ['host'])).toBe('| scenario | case | figure | unit | host |\n|---|---|---|---|---:|\n| resume-under-lock | K=8 | pass | runs ↑ | 2/2 |');
  });
});

test('goals read the summary: a list p99 over the bare echo of the same run, and n/a for figures not measured', () => {
  const goals = evaluateGoals(summarize(WITH_FLOOR, ['host', 'ref']));
  expect(measuredGoals(goals)).toEqual([
    { goal: 'loaded/list p99 while 8 resumes wait on a held lock', unit: 'ms', a: 2, b: 2100, ratio: 2 / 2100, floor: 1.25, ofFloor: 2 / 1.25, target: '≤ 1.5 × floor', verdict: 'missed' },
  ]);
  expect(goals.filter((g) => g.a === null).every((g) => g.verdict === 'n/a')).toBe(true);
  expect(goals.length).toBe(50);
});

test('a goal read against a floor is n/a when the run did not measure that floor', () => {
  const goals = evaluateGoals(summarize(RESULTS, ['host', 'ref']));
  expect(goals.find((g) => g.goal === 'loaded/list p99 while 8 resumes wait on a held lock')).toEqual({
    goal: 'loaded/list p99 while 8 resumes wait on a held lock', unit: 'ms', a: 2, b: 2100, ratio: 2 / 2100, floor: null, ofFloor: null, target: '≤ 1.5 × floor', verdict: 'n/a',
  });
  expect(measuredGoals(goals)).toEqual([]);
});

test('issue 13 goals: ratios to the floor on A alone, floors shown beside them, ratio goals n/a with one server', () => {
  const rec = (scenario: string, id: string, figures: Record<string, [number, 'ms' | 'count' | 'kB' | 'ratio']>): CaseResult => {
    const r = new CaseRecorder(scenario, id, 'host', 1);
    for (const [name, [value, unit]] of Object.entries(figures)) r.figure(name, value, unit);
    return r.finish();
  };
  const results = [
    rec('cold-start', 'reused', { 'spawn→initialize ÷ bare node (p50)': [1.25, 'count'] }),
    rec('idle-unload', 'after 300 ms idle', {
      'unsubscribe→closed p50': [1.27, 'ms'],
      'unsubscribe→reply p50': [0.74, 'ms'],
      'bare node: unsubscribe→closed (floor) p50': [0.69, 'ms'],
      'bare node: unsubscribe→reply (floor) p50': [0.5, 'ms'],
    }),
    rec('locked-unload', 'K=1', { 'unsubscribe→all closed': [1.5, 'ms'] }),
    rec('churn', '', { 'loaded/list during churn p99': [4.5, 'ms'], 'bare node echo during churn (the floor) p99': [3.4, 'ms'] }),
    rec('scale', '', { 'RSS per thread': [5.4, 'kB'], 'settled RSS / RSS before': [1.04, 'ratio'] }),
    rec('seed', '', { 'unsubscribe→closed': [1.8, 'ms'] }),
  ];
  const goals = measuredGoals(evaluateGoals(summarize(results, ['host'])));
  expect(goals.map((g) => [g.goal, g.a, g.floor, g.ofFloor, g.target, g.verdict])).toEqual([
    ['cold start ÷ bare Node (reused home, p50)', 1.25, null, null, '≤ 1.3', 'met'],
    ['unsubscribe → thread/closed p50, after 300 ms idle', 1.27, 0.69, 1.27 / 0.69, '≤ 2 × floor', 'met'],
    ['unsubscribe → its reply p50, after 300 ms idle', 0.74, 0.5, 0.74 / 0.5, 'report', 'reported'],
    ['unsubscribe → thread/closed under a held lock, K=1', 1.5, 0.69, 1.5 / 0.69, '≤ 2 × floor', 'missed'],
    ['loaded/list p99 during churn', 4.5, 3.4, 4.5 / 3.4, '≤ 1.5 × floor', 'met'],
    ['scale: RSS per loaded idle thread', 5.4, null, null, '≤ 8', 'met'],
    ['scale: RSS settled after unloading all ÷ before', 1.04, null, null, '≤ 1.1', 'met'],
  ]);
  expect(goalsMarkdown(goals.slice(0, 2), ['host'])).toBe(
    [
      '| goal | unit | host | floor | host ÷ floor | target | verdict |',
      '|---|---|---:|---:|---:|---|---|',
      '| cold start ÷ bare Node (reused home, p50) | count | 1.25 |  |  | ≤ 1.3 | met |',
      '| unsubscribe → thread/closed p50, after 300 ms idle | ms | 1.27 | 0.69 | 1.8 | ≤ 2 × floor | met |',
    ].join('\n'),
  );
});

test('handoff goals: no violation, fairness at least 0.9, and the worst process\'s list p99 over the bare echo in the same race', () => {
  const handoff = (server: string, violations: number, jain: number, listP99: number, echoP99: number): CaseResult => {
    const rec = new CaseRecorder('handoff', '', server, 1);
    rec.figure('violations', violations, 'count');
    rec.figure("Jain's fairness index", jain, 'ratio', 'higher');
    rec.figure('loaded/list p99, worst process', listP99, 'ms');
    rec.latency('bare node echo during the race (the floor)', { count: 1, p50: echoP99, p90: echoP99, p99: echoP99, max: echoP99 });
    return rec.finish();
  };
  const goals = evaluateGoals(summarize([handoff('host', 0, 0.95, 10, 6), handoff('ref', 1, 0.5, 150, 8)], ['host', 'ref'])).filter((g) => g.goal.startsWith('handoff:'));
  expect(goals).toEqual([
    { goal: 'handoff: violations (histories, lock table, dead holders)', unit: 'count', a: 0, b: 1, ratio: 0, floor: null, ofFloor: null, target: '≤ 0', verdict: 'met' },
    { goal: "handoff: Jain's fairness index", unit: 'ratio', a: 0.95, b: 0.5, ratio: 1.9, floor: null, ofFloor: null, target: '≥ 0.9', verdict: 'met' },
    { goal: 'handoff: loaded/list p99 on every process', unit: 'ms', a: 10, b: 150, ratio: 10 / 150, floor: 6, ofFloor: 10 / 6, target: '≤ 1.5 × floor', verdict: 'missed' },
  ]);
  expect(goalsMarkdown(goals, ['host', 'ref'])).toBe(
    [
      '| goal | unit | host | ref | host/ref | floor | host ÷ floor | target | verdict |',
      '|---|---|---:|---:|---:|---:|---:|---|---|',
      '| handoff: violations (histories, lock table, dead holders) | count | 0 | 1 | 0 |  |  | ≤ 0 | met |',
      "| handoff: Jain's fairness index | ratio | 0.95 | 0.5 | 1.9 |  |  | ≥ 0.9 | met |",
      '| handoff: loaded/list p99 on every process | ms | 10 | 150 | 0.067 | 6 | 1.7 | ≤ 1.5 × floor | missed |',
    ].join('\n'),
  );
});

test('handoff on PostgreSQL: its own case, judged on its rows and on the fairness of acquisitions', () => {
  const handoff = (violations: number, jain: number): CaseResult => {
    const rec = new CaseRecorder('handoff', 'postgres', 'host', 1);
    rec.figure('violations', violations, 'count');
    rec.figure("Jain's fairness index", jain, 'ratio', 'higher');
    return rec.finish();
  };
  const verdicts = (result: CaseResult) => measuredGoals(evaluateGoals(summarize([result], ['host']))).map((g) => [g.goal, g.a, g.target, g.verdict]);
  expect(verdicts(handoff(0, 0.93))).toEqual([
    ['handoff on PostgreSQL: violations (the rows)', 0, '≤ 0', 'met'],
    ["handoff on PostgreSQL: Jain's fairness index of acquisitions", 0.93, '≥ 0.9', 'met'],
  ]);
  expect(verdicts(handoff(2, 0.8)).map((row) => row[3])).toEqual(['missed', 'missed']);
});

describe('the report files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-report-test-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('results.json holds the whole report, raw timelines and environment included', () => {
    const r = report();
    const paths = writeReportFiles(join(dir, 'nested', 'out'), r);
    const json = JSON.parse(readFileSync(paths.json, 'utf8')) as BenchReport;
    expect(json).toEqual(r);
    expect(json.pass).toBe(false);
    expect(json.results[3]!.failures).toEqual(['2 of 8 resumes failed: timeout']);
    expect(json.results[0]!.timeline!.samples).toEqual([[-300, 0.5], [0, 0.6], [15, null], [2100, 0.4]]);
    expect(readFileSync(paths.markdown, 'utf8')).toBe(reportMarkdown(r));
  });

  test('table.md ends with the goals and the failed cases', () => {
    const text = reportMarkdown(report());
    expect(text.startsWith('Medians over 2 run(s). ↓ lower is better, ↑ higher is better.\n\n| scenario |')).toBe(true);
    expect(text).toContain('\nGoals (host against ref):\n\n| goal | unit | host | ref | host/ref | floor | host ÷ floor | target | verdict |\n');
    expect(text.endsWith('\nFailed cases:\n- resume-under-lock K=8 ref run 2: 2 of 8 resumes failed: timeout\n')).toBe(true);
  });

  test('report.html is self-contained, with a bar chart and a timeline with the hold shaded', () => {
    const html = readFileSync(writeReportFiles(dir, report()).html, 'utf8');
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).not.toMatch(/<script|<link|src="|href="http/);
    expect(html.match(/<svg /g)).toHaveLength(2);
    expect(html).toContain('<title>resume-under-lock: comparison (medians)</title>');
    expect(html).toContain('<title>resume-under-lock K=8: thread/loaded/list latency over time</title>');
    expect(html).toContain('lock held by another process');
    expect(html).toContain('<td>≤ 1.5 × floor</td><td class="missed">missed</td></tr></table>');
  });

  test('one server: the goals it measured against its floor, without ratio columns, and the page still renders its charts', () => {
    const r = report(WITH_FLOOR.filter((x) => x.server === 'host'), ['host']);
    expect(measuredGoals(r.goals ?? []).map((g) => [g.goal, g.verdict])).toEqual([['loaded/list p99 while 8 resumes wait on a held lock', 'missed']]);
    const html = readFileSync(writeReportFiles(join(dir, 'one'), r).html, 'utf8');
    expect(html).toContain('<h2>Goals</h2>\n<table><tr><th>goal</th><th>unit</th><th>host</th><th>target</th><th>verdict</th></tr>');
    expect(html.match(/<svg /g)).toHaveLength(2);
  });
});
