// The issues' goals table, checked against a run: server A (the one under test), alone or
// against B (the reference). A goal is an absolute ceiling on A's figure, a ceiling on A/B, or
// "report only" (the floors the latencies are read against). Figures are the medians over runs
// from the summary; a goal whose figure was not measured (scenario not selected, or a ratio
// with one server) reads n/a rather than passing, and the printed table leaves those out.
import { fmt, fmtRatio, type SummaryRow } from './summary-table.js';

type Target =
  | { kind: 'atMost'; ms: number }
  /** A bound on A's figure in its own unit (a count, a ratio): `≤ 0`, `≥ 0.9`. */
  | { kind: 'bound'; atMost?: number; atLeast?: number }
  | { kind: 'ratioAtMost'; ratio: number; text: string }
  | { kind: 'report' };

interface Goal {
  label: string;
  scenario: string;
  case: string;
  figure: string;
  target: Target;
}

const GOALS: readonly Goal[] = [
  { label: 'unsubscribe → thread/closed under a held lock (seed)', scenario: 'seed', case: '', figure: 'unsubscribe→closed', target: { kind: 'ratioAtMost', ratio: 1, text: '≤ reference' } },
  { label: 'turn/start → turn/completed, sequential (p50)', scenario: 'turn-sequential', case: '', figure: 'turn p50', target: { kind: 'ratioAtMost', ratio: 1 / 5, text: '≤ 1/5 of reference' } },
  { label: 'concurrent one-message turns, makespan', scenario: 'turn-concurrent', case: '', figure: 'makespan', target: { kind: 'ratioAtMost', ratio: 1 / 10, text: '≤ 1/10 of reference' } },
  // Both homes: a first start is the reference's slow case (it creates its files), a reused
  // home its fast one, and the "≈ 100 ms" is the latter.
  { label: 'cold start to initialize response (fresh home, p50)', scenario: 'cold-start', case: 'fresh', figure: 'spawn→initialize p50', target: { kind: 'ratioAtMost', ratio: 1, text: '≤ reference' } },
  { label: 'cold start to initialize response (reused home, p50)', scenario: 'cold-start', case: 'reused', figure: 'spawn→initialize p50', target: { kind: 'ratioAtMost', ratio: 1, text: '≤ reference' } },
  // Issue 12, with --compare (not --mix): each server's processes alone on a home.
  { label: 'handoff: violations (histories, lock table, dead holders)', scenario: 'handoff', case: '', figure: 'violations', target: { kind: 'bound', atMost: 0 } },
  { label: "handoff: Jain's fairness index", scenario: 'handoff', case: '', figure: "Jain's fairness index", target: { kind: 'bound', atLeast: 0.9 } },
  { label: 'handoff: loaded/list p99 on every process', scenario: 'handoff', case: '', figure: 'loaded/list p99, worst process', target: { kind: 'atMost', ms: 5 } },
  { label: 'handoff: bare Node echo p99 during the race (floor)', scenario: 'handoff', case: '', figure: 'bare node echo during the race (the floor) p99', target: { kind: 'report' } },
  // Issue 13, the physical floor: absolute, so they read with one server too. The floors the
  // round trips are read against (a bare Node line echo, the server before a hold) are
  // reported beside them.
  { label: 'cold start ÷ bare Node (fresh home, p50)', scenario: 'cold-start', case: 'fresh', figure: 'spawn→initialize ÷ bare node (p50)', target: { kind: 'bound', atMost: 1.3 } },
  { label: 'cold start ÷ bare Node (reused home, p50)', scenario: 'cold-start', case: 'reused', figure: 'spawn→initialize ÷ bare node (p50)', target: { kind: 'bound', atMost: 1.3 } },
  { label: 'unsubscribe → thread/closed p50, idle thread', scenario: 'idle-unload', case: 'at once', figure: 'unsubscribe→closed p50', target: { kind: 'atMost', ms: 1 } },
  { label: 'unsubscribe → thread/closed p50, after 300 ms idle', scenario: 'idle-unload', case: 'after 300 ms idle', figure: 'unsubscribe→closed p50', target: { kind: 'atMost', ms: 1 } },
  { label: 'bare Node: unsubscribe → thread/closed p50, at once (floor)', scenario: 'idle-unload', case: 'at once', figure: 'bare node: unsubscribe→closed (floor) p50', target: { kind: 'report' } },
  { label: 'unsubscribe → its reply p50, after 300 ms idle', scenario: 'idle-unload', case: 'after 300 ms idle', figure: 'unsubscribe→reply p50', target: { kind: 'report' } },
  { label: 'bare Node: unsubscribe → thread/closed p50, after 300 ms idle (floor)', scenario: 'idle-unload', case: 'after 300 ms idle', figure: 'bare node: unsubscribe→closed (floor) p50', target: { kind: 'report' } },
  { label: 'unsubscribe → thread/closed under a held lock, K=1', scenario: 'locked-unload', case: 'K=1', figure: 'unsubscribe→all closed', target: { kind: 'atMost', ms: 1 } },
  { label: 'unsubscribe → all closed under a held lock, K=8', scenario: 'locked-unload', case: 'K=8', figure: 'unsubscribe→all closed', target: { kind: 'atMost', ms: 5 } },
  ...(['resume-under-lock', 'start-under-lock'] as const).flatMap((scenario) =>
    [1, 8, 32].map((k): Goal => ({
      label: `loaded/list p99 while ${k} ${scenario === 'resume-under-lock' ? 'resume' : 'start'}${k === 1 ? ' waits' : 's wait'} on a held lock`,
      scenario,
      case: `K=${k}`,
      figure: 'loaded/list during hold p99',
      target: { kind: 'atMost', ms: 1 },
    })),
  ),
  { label: 'loaded/list p99 before the hold, 8 resumes (floor)', scenario: 'resume-under-lock', case: 'K=8', figure: 'loaded/list before the hold (floor) p99', target: { kind: 'report' } },
  { label: 'loaded/list p99 during churn', scenario: 'churn', case: '', figure: 'loaded/list during churn p99', target: { kind: 'atMost', ms: 1 } },
  { label: 'bare Node echo p99 during churn (floor)', scenario: 'churn', case: '', figure: 'bare node echo during churn (the floor) p99', target: { kind: 'report' } },
  { label: 'loaded/list p99, idle server', scenario: 'probe-floor', case: '', figure: 'loaded/list, idle server p99', target: { kind: 'report' } },
  { label: 'bare Node echo p99, idle (floor)', scenario: 'probe-floor', case: '', figure: 'bare node echo (the floor) p99', target: { kind: 'report' } },
  { label: 'loaded/list max as the pool starts', scenario: 'probe-floor', case: '', figure: 'loaded/list as the pool starts max', target: { kind: 'report' } },
  { label: 'bare Node echo max as it starts (floor)', scenario: 'probe-floor', case: '', figure: 'bare node echo as it starts (floor) max', target: { kind: 'report' } },
  { label: 'scale: loaded/list (full page) p99', scenario: 'scale', case: '', figure: 'loaded/list full p99', target: { kind: 'atMost', ms: 5 } },
  { label: 'scale: bare Node, a reply of the same size p99 (floor)', scenario: 'scale', case: '', figure: 'bare node: a reply of the same size (floor) p99', target: { kind: 'report' } },
  { label: 'scale: RSS per loaded idle thread', scenario: 'scale', case: '', figure: 'RSS per thread', target: { kind: 'bound', atMost: 8 } },
  { label: 'scale: RSS settled after unloading all ÷ before', scenario: 'scale', case: '', figure: 'settled RSS / RSS before', target: { kind: 'bound', atMost: 1.1 } },
  { label: 'scale: its anonymous part (the heaps) ÷ before', scenario: 'scale', case: '', figure: 'settled anonymous RSS / before', target: { kind: 'report' } },
  { label: 'scale: RSS settled after the last round ÷ after the first (--scale-rounds)', scenario: 'scale', case: '', figure: 'settled RSS, last round / first', target: { kind: 'report' } },
  { label: 'full host: failed turns on admitted threads', scenario: 'full-host', case: '', figure: 'failed turns on admitted threads', target: { kind: 'bound', atMost: 0 } },
  { label: 'full host: turns missing from rollouts', scenario: 'full-host', case: '', figure: 'turns missing from rollouts', target: { kind: 'bound', atMost: 0 } },
  ...[5, 10].map((mb): Goal => ({
    label: `huge lines: loaded/list p99 while another client sends ${mb} MB turns`,
    scenario: 'huge-line',
    case: `${mb} MB turn/start`,
    figure: 'loaded/list during huge lines p99',
    target: { kind: 'report' },
  })),
];

export type Verdict = 'met' | 'missed' | 'n/a' | 'reported';

/** One goal as measured. */
export interface GoalRow {
  goal: string;
  unit: string;
  a: number | null;
  b: number | null;
  ratio: number | null;
  target: string;
  verdict: Verdict;
}

export function evaluateGoals(rows: readonly SummaryRow[]): GoalRow[] {
  return GOALS.map((goal) => {
    const row = rows.find((r) => r.scenario === goal.scenario && r.case === goal.case && r.figure === goal.figure);
    const a = row?.values[0] ?? null;
    const b = row?.values[1] ?? null;
    const ratio = row?.ratio ?? null;
    const base = { goal: goal.label, unit: row?.unit ?? '', a, b, ratio };
    switch (goal.target.kind) {
      case 'atMost':
        return { ...base, target: `≤ ${goal.target.ms} ms`, verdict: a === null ? 'n/a' : a <= goal.target.ms ? 'met' : 'missed' };
      case 'bound': {
        const { atMost, atLeast } = goal.target;
        const target = atMost !== undefined ? `≤ ${atMost}` : `≥ ${atLeast}`;
        const met = a !== null && (atMost === undefined || a <= atMost) && (atLeast === undefined || a >= atLeast);
        return { ...base, target, verdict: a === null ? 'n/a' : met ? 'met' : 'missed' };
      }
      case 'ratioAtMost':
        return { ...base, target: goal.target.text, verdict: ratio === null ? 'n/a' : ratio <= goal.target.ratio ? 'met' : 'missed' };
      case 'report':
        return { ...base, target: 'report', verdict: a === null ? 'n/a' : 'reported' };
    }
  });
}

/** The goals this run could judge or report (a ratio needs both servers), the rest left out. */
export const measuredGoals = (goals: readonly GoalRow[]): GoalRow[] => goals.filter((g) => g.verdict !== 'n/a');

export function goalsMarkdown(goals: readonly GoalRow[], servers: readonly string[]): string {
  const [a, b] = servers;
  if (b === undefined) {
    const lines = [`| goal | unit | ${a} | target | verdict |`, '|---|---|---:|---|---|'];
    for (const g of goals) lines.push(`| ${g.goal} | ${g.unit} | ${fmt(g.a)} | ${g.target} | ${g.verdict} |`);
    return lines.join('\n');
  }
  const lines = [`| goal | unit | ${a} | ${b} | ${a}/${b} | target | verdict |`, '|---|---|---:|---:|---:|---|---|'];
  for (const g of goals) lines.push(`| ${g.goal} | ${g.unit} | ${fmt(g.a)} | ${fmt(g.b)} | ${fmtRatio(g.ratio)} | ${g.target} | ${g.verdict} |`);
  return lines.join('\n');
}
