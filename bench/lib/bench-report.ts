// The report of one `thread-host bench` invocation, and the three files it is written as:
//   results.json  every case result whole (raw samples, timelines), the summary, the goals,
//                 the environment and each server's argv and userAgent
//   table.md      the summary table (and the goals table with two servers)
//   report.html   the same as one self-contained page with charts (html-report.ts)
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ScenarioParams } from '../scenarios/scenario.js';
import type { CaseResult } from './case-result.js';
import type { Environment } from './environment.js';
import { evaluateGoals, goalsMarkdown, measuredGoals, type GoalRow } from './goals.js';
import { renderHtml } from './html-report.js';
import { markdownTable, summarize, type SummaryRow } from './summary-table.js';

/** A server as run: its report name, what was spawned, and what it said it was. */
export interface ServerInfo {
  name: string;
  argv: string[];
  env: Record<string, string>;
  userAgent: string;
}

export interface BenchReport {
  tool: 'thread-host bench';
  /** Bumped when the JSON shape changes incompatibly. */
  formatVersion: 1;
  startedAt: string;
  finishedAt: string;
  argv: string[];
  environment: Environment;
  servers: ServerInfo[];
  scenarios: Array<{ name: string; summary: string }>;
  runs: number;
  params: ScenarioParams;
  results: CaseResult[];
  summary: SummaryRow[];
  /** Only with two servers: the issue's goals, A against B. */
  goals: GoalRow[] | null;
  /** True when every case of every server passed. */
  pass: boolean;
}

/** Folds results into the summary and goals; the caller supplies the rest. */
export function buildReport(fields: Omit<BenchReport, 'tool' | 'formatVersion' | 'summary' | 'goals' | 'pass'>): BenchReport {
  const names = fields.servers.map((s) => s.name);
  const summary = summarize(fields.results, names);
  return {
    tool: 'thread-host bench',
    formatVersion: 1,
    ...fields,
    summary,
    goals: evaluateGoals(summary),
    pass: fields.results.every((r) => r.pass),
  };
}

/** The markdown printed at the end of a run and saved as table.md. */
export function reportMarkdown(report: BenchReport): string {
  const names = report.servers.map((s) => s.name);
  const parts = [`Medians over ${report.runs} run(s). ↓ lower is better, ↑ higher is better.`, '', markdownTable(report.summary, names)];
  const goals = measuredGoals(report.goals ?? []);
  if (goals.length > 0) parts.push('', `Goals (${names.length === 2 ? `${names[0]} against ${names[1]}` : names[0]}):`, '', goalsMarkdown(goals, names));
  const failed = report.results.filter((r) => !r.pass);
  if (failed.length > 0) {
    parts.push('', 'Failed cases:');
    for (const r of failed) parts.push(`- ${[r.scenario, r.case, r.server].filter(Boolean).join(' ')} run ${r.run}: ${r.failures.join('; ')}`);
  }
  return parts.join('\n') + '\n';
}

/** Writes the three files into `dir` (created if needed); returns their paths. */
export function writeReportFiles(dir: string, report: BenchReport): { json: string; markdown: string; html: string } {
  mkdirSync(dir, { recursive: true });
  const paths = { json: join(dir, 'results.json'), markdown: join(dir, 'table.md'), html: join(dir, 'report.html') };
  writeFileSync(paths.json, JSON.stringify(report, null, 1) + '\n');
  writeFileSync(paths.markdown, reportMarkdown(report));
  writeFileSync(paths.html, renderHtml(report));
  return paths;
}
