// The issues' goals table, checked against a run: server A (the one under test), alone or
// against B (the reference). A goal is a ceiling on A's figure in its own unit (a count, a
// ratio), a ceiling on A/B, a ceiling on A's figure over a floor measured in the same run, or
// "report only". The floor is what the machine itself gives for the same exchange (a bare Node
// echo spawned and probed the same way): a latency goal in milliseconds would be judged
// against how busy and how fast the machine happens to be, and on some days sat below what two
// bare processes can do, so every latency goal on A alone is a multiple of that floor.
// Figures are the medians over runs from the summary; a goal whose figure or floor was not
// measured (scenario not selected, or a ratio with one server) reads n/a rather than passing,
// and the printed table leaves those out.
import { fmt, fmtRatio, type SummaryRow } from './summary-table.js';

/** One figure of the summary: where a goal or its floor is read from. */
interface FigureRef {
  scenario: string;
  case: string;
  figure: string;
}

type Target =
  /** A bound on A's figure in its own unit (a count, a ratio): `≤ 0`, `≥ 0.9`. */
  | { kind: 'bound'; atMost?: number; atLeast?: number }
  | { kind: 'ratioAtMost'; ratio: number; text: string }
  /** A's figure over its floor (the goal's `floor`), both from server A's runs. */
  | { kind: 'floorRatioAtMost'; ratio: number }
  | { kind: 'report' };

interface Goal extends FigureRef {
  label: string;
  target: Target;
  /** The same exchange with a bare Node echo in the same run; shown beside A's figure. */
  floor?: FigureRef;
}

/** The probe-floor scenario's idle bare echo: the floor of a list answer on a quiet server. */
const IDLE_ECHO: FigureRef = { scenario: 'probe-floor', case: '', figure: 'bare node echo (the floor) p99' };
/** A bare echo's reply-then-announce after 300 ms of quiet: the cold path an unload takes. */
const COLD_CLOSE_ECHO: FigureRef = { scenario: 'idle-unload', case: 'after 300 ms idle', figure: 'bare node: unsubscribe→closed (floor) p50' };
/** A list answer's p99 may be half as long again as the bare echo's (issue 27, part 8). */
const LIST_OVER_ECHO = 1.5;
/** An unsubscribe's close may take twice the bare echo's reply-then-announce (issue 27, part 8). */
const CLOSE_OVER_ECHO = 2;

const GOALS: readonly Goal[] = [
  { label: 'unsubscribe → thread/closed under a held lock (seed)', scenario: 'seed', case: '', figure: 'unsubscribe→closed', target: { kind: 'ratioAtMost', ratio: 1, text: '≤ reference' } },
  { label: 'turn/start → turn/completed, sequential (p50)', scenario: 'turn-sequential', case: '', figure: 'turn p50', target: { kind: 'ratioAtMost', ratio: 1 / 5, text: '≤ 1/5 of reference' } },
  // Issue 31: a turn on the PostgreSQL store, against the files store's in the same run as its floor.
  {
    label: 'turn p50 on the PostgreSQL store, over the files store (the floor)',
    scenario: 'turn-sequential',
    case: 'postgres',
    figure: 'turn p50',
    floor: { scenario: 'turn-sequential', case: '', figure: 'turn p50' },
    target: { kind: 'floorRatioAtMost', ratio: 1.5 },
  },
  { label: 'takeover after SIGKILL, slowest, beyond the lease', scenario: 'takeover', case: 'SIGKILL', figure: 'slowest takeover − lease', target: { kind: 'bound', atMost: 1_000 } },
  { label: 'takeover after SIGSTOP, slowest, beyond the lease', scenario: 'takeover', case: 'SIGSTOP', figure: 'slowest takeover − lease', target: { kind: 'bound', atMost: 1_000 } },
  // Issue 31: forwarded p50 − direct p50 on one thread; the bare echo's round trip beside it.
  {
    label: 'forwarding adds to a turn (p50)', scenario: 'forwarding', case: '', figure: 'forwarding adds, p50',
    floor: { scenario: 'forwarding', case: '', figure: 'bare node echo (the floor) p50' },
    target: { kind: 'bound', atMost: 1 },
  },
  { label: 'concurrent one-message turns, makespan', scenario: 'turn-concurrent', case: '', figure: 'makespan', target: { kind: 'ratioAtMost', ratio: 1 / 10, text: '≤ 1/10 of reference' } },
  // The command tool: a trivial command's spawn (the call leaving the mock) → item/completed, and
  // 32 threads running one each at once, sandboxed and not; both with approval policy never.
  ...['workspace-write', 'danger-full-access'].flatMap((sandbox): Goal[] => [
    { label: `exec_command call → item/completed, ${sandbox} (p50)`, scenario: 'shell', case: sandbox, figure: 'call → item/completed p50', target: { kind: 'ratioAtMost', ratio: 1, text: '≤ reference' } },
    { label: `exec_command call → item/completed, ${sandbox} (p99)`, scenario: 'shell', case: sandbox, figure: 'call → item/completed p99', target: { kind: 'ratioAtMost', ratio: 1, text: '≤ reference' } },
    { label: `32 threads running a command at once, ${sandbox}, makespan`, scenario: 'shell', case: `K=32 ${sandbox}`, figure: 'makespan', target: { kind: 'ratioAtMost', ratio: 1, text: '≤ reference' } },
  ]),
  // Both homes: a first start is the reference's slow case (it creates its files), a reused
  // home its fast one.
  { label: 'cold start to initialize response (fresh home, p50)', scenario: 'cold-start', case: 'fresh', figure: 'spawn→initialize p50', target: { kind: 'ratioAtMost', ratio: 1, text: '≤ reference' } },
  { label: 'cold start to initialize response (reused home, p50)', scenario: 'cold-start', case: 'reused', figure: 'spawn→initialize p50', target: { kind: 'ratioAtMost', ratio: 1, text: '≤ reference' } },
  // Issue 12, with --compare (not --mix): each server's processes alone on a home.
  { label: 'handoff: violations (histories, lock table, dead holders)', scenario: 'handoff', case: '', figure: 'violations', target: { kind: 'bound', atMost: 0 } },
  { label: "handoff: Jain's fairness index", scenario: 'handoff', case: '', figure: "Jain's fairness index", target: { kind: 'bound', atLeast: 0.9 } },
  // Issue 31: the same race with P hosts on one database, judged from its rows.
  { label: 'handoff on PostgreSQL: violations (the rows)', scenario: 'handoff', case: 'postgres', figure: 'violations', target: { kind: 'bound', atMost: 0 } },
  { label: "handoff on PostgreSQL: Jain's fairness index of acquisitions", scenario: 'handoff', case: 'postgres', figure: "Jain's fairness index", target: { kind: 'bound', atLeast: 0.9 } },
  {
    label: 'handoff: loaded/list p99 on every process', scenario: 'handoff', case: '', figure: 'loaded/list p99, worst process',
    floor: { scenario: 'handoff', case: '', figure: 'bare node echo during the race (the floor) p99' },
    target: { kind: 'floorRatioAtMost', ratio: LIST_OVER_ECHO },
  },
  // Issue 13, the physical floor, read with one server too. Cold start is already a ratio: each
  // start is preceded by a bare `node -e` under the same load.
  { label: 'cold start ÷ bare Node (fresh home, p50)', scenario: 'cold-start', case: 'fresh', figure: 'spawn→initialize ÷ bare node (p50)', target: { kind: 'bound', atMost: 1.3 } },
  { label: 'cold start ÷ bare Node (reused home, p50)', scenario: 'cold-start', case: 'reused', figure: 'spawn→initialize ÷ bare node (p50)', target: { kind: 'bound', atMost: 1.3 } },
  ...(['at once', 'after 300 ms idle'] as const).map((when): Goal => ({
    label: `unsubscribe → thread/closed p50, ${when === 'at once' ? 'idle thread' : 'after 300 ms idle'}`,
    scenario: 'idle-unload',
    case: when,
    figure: 'unsubscribe→closed p50',
    floor: { scenario: 'idle-unload', case: when, figure: 'bare node: unsubscribe→closed (floor) p50' },
    target: { kind: 'floorRatioAtMost', ratio: CLOSE_OVER_ECHO },
  })),
  {
    label: 'unsubscribe → its reply p50, after 300 ms idle', scenario: 'idle-unload', case: 'after 300 ms idle', figure: 'unsubscribe→reply p50',
    floor: { scenario: 'idle-unload', case: 'after 300 ms idle', figure: 'bare node: unsubscribe→reply (floor) p50' },
    target: { kind: 'report' },
  },
  // Under a held lock the thread has been quiet through the probe's lead, so its close takes
  // the cold path. The ceilings these replace allowed eight closes five times one close's.
  { label: 'unsubscribe → thread/closed under a held lock, K=1', scenario: 'locked-unload', case: 'K=1', figure: 'unsubscribe→all closed', floor: COLD_CLOSE_ECHO, target: { kind: 'floorRatioAtMost', ratio: CLOSE_OVER_ECHO } },
  { label: 'unsubscribe → all closed under a held lock, K=8', scenario: 'locked-unload', case: 'K=8', figure: 'unsubscribe→all closed', floor: COLD_CLOSE_ECHO, target: { kind: 'floorRatioAtMost', ratio: 5 * CLOSE_OVER_ECHO } },
  ...(['resume-under-lock', 'start-under-lock'] as const).flatMap((scenario) =>
    [1, 8, 32].map((k): Goal => ({
      label: `loaded/list p99 while ${k} ${scenario === 'resume-under-lock' ? 'resume' : 'start'}${k === 1 ? ' waits' : 's wait'} on a held lock`,
      scenario,
      case: `K=${k}`,
      figure: 'loaded/list during hold p99',
      floor: IDLE_ECHO,
      target: { kind: 'floorRatioAtMost', ratio: LIST_OVER_ECHO },
    })),
  ),
  { label: 'loaded/list p99 before the hold, 8 resumes (the server idle)', scenario: 'resume-under-lock', case: 'K=8', figure: 'loaded/list before the hold (floor) p99', floor: IDLE_ECHO, target: { kind: 'report' } },
  {
    label: 'loaded/list p99 during churn', scenario: 'churn', case: '', figure: 'loaded/list during churn p99',
    floor: { scenario: 'churn', case: '', figure: 'bare node echo during churn (the floor) p99' },
    target: { kind: 'floorRatioAtMost', ratio: LIST_OVER_ECHO },
  },
  { label: 'loaded/list p99, idle server', scenario: 'probe-floor', case: '', figure: 'loaded/list, idle server p99', floor: IDLE_ECHO, target: { kind: 'report' } },
  {
    label: 'loaded/list max as the pool starts', scenario: 'probe-floor', case: '', figure: 'loaded/list as the pool starts max',
    floor: { scenario: 'probe-floor', case: '', figure: 'bare node echo as it starts (floor) max' },
    target: { kind: 'report' },
  },
  {
    label: 'scale: loaded/list (full page) p99', scenario: 'scale', case: '', figure: 'loaded/list full p99',
    floor: { scenario: 'scale', case: '', figure: 'bare node: a reply of the same size (floor) p99' },
    target: { kind: 'floorRatioAtMost', ratio: LIST_OVER_ECHO },
  },
  { label: 'scale: RSS per loaded idle thread', scenario: 'scale', case: '', figure: 'RSS per thread', target: { kind: 'bound', atMost: 8 } },
  { label: 'scale: RSS settled after unloading all ÷ before', scenario: 'scale', case: '', figure: 'settled RSS / RSS before', target: { kind: 'bound', atMost: 1.1 } },
  { label: 'scale: its anonymous part (the heaps) ÷ before', scenario: 'scale', case: '', figure: 'settled anonymous RSS / before', target: { kind: 'report' } },
  { label: 'scale: RSS settled after the last round ÷ after the first (--scale-rounds)', scenario: 'scale', case: '', figure: 'settled RSS, last round / first', target: { kind: 'report' } },
  { label: 'full host: failed turns on admitted threads', scenario: 'full-host', case: '', figure: 'failed turns on admitted threads', target: { kind: 'bound', atMost: 0 } },
  { label: 'full host: turns missing from rollouts', scenario: 'full-host', case: '', figure: 'turns missing from rollouts', target: { kind: 'bound', atMost: 0 } },
  // Issue 27, part 8: 200 clients, 20 streaming threads beside 9,980 idle ones, 20 turns/s
  // (`fanout --idle-threads 9980`). The clients' own probe is timed on the bench's main thread,
  // behind their 200 connections' messages; the probe from a thread of its own is the server's
  // answer, against a bare WebSocket echo probed the same way at the same time.
  { label: 'fanout paced: delivery p99', scenario: 'fanout', case: 'paced 20/s', figure: 'delivery p99', target: { kind: 'bound', atMost: 10 } },
  {
    label: 'fanout paced: loaded/list p99 from a thread of its own', scenario: 'fanout', case: 'paced 20/s', figure: 'probe from a thread of its own p99',
    floor: { scenario: 'fanout', case: 'paced 20/s', figure: 'bare node ws echo from a thread of its own (the floor) p99' },
    target: { kind: 'floorRatioAtMost', ratio: LIST_OVER_ECHO },
  },
  {
    label: "fanout paced: loaded/list p99, the clients' own (bench main thread)", scenario: 'fanout', case: 'paced 20/s', figure: 'probe p99',
    floor: { scenario: 'fanout', case: 'paced 20/s', figure: 'bare node ws echo from a thread of its own (the floor) p99' },
    target: { kind: 'report' },
  },
  { label: 'fanout: events to clients not subscribed', scenario: 'fanout', case: 'paced 20/s', figure: 'events to non-subscribers', target: { kind: 'bound', atMost: 0 } },
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
  /** The bare echo's figure from A's runs, for goals read against a floor; else null. */
  floor: number | null;
  /** a ÷ floor. */
  ofFloor: number | null;
  target: string;
  verdict: Verdict;
}

const find = (rows: readonly SummaryRow[], ref: FigureRef): SummaryRow | undefined =>
  rows.find((r) => r.scenario === ref.scenario && r.case === ref.case && r.figure === ref.figure);

export function evaluateGoals(rows: readonly SummaryRow[]): GoalRow[] {
  return GOALS.map((goal) => {
    const row = find(rows, goal);
    const a = row?.values[0] ?? null;
    const b = row?.values[1] ?? null;
    const ratio = row?.ratio ?? null;
    const floor = goal.floor === undefined ? null : (find(rows, goal.floor)?.values[0] ?? null);
    const ofFloor = a !== null && floor !== null && floor > 0 ? a / floor : null;
    const base = { goal: goal.label, unit: row?.unit ?? '', a, b, ratio, floor, ofFloor };
    switch (goal.target.kind) {
      case 'bound': {
        const { atMost, atLeast } = goal.target;
        const target = atMost !== undefined ? `≤ ${atMost}` : `≥ ${atLeast}`;
        const met = a !== null && (atMost === undefined || a <= atMost) && (atLeast === undefined || a >= atLeast);
        return { ...base, target, verdict: a === null ? 'n/a' : met ? 'met' : 'missed' };
      }
      case 'ratioAtMost':
        return { ...base, target: goal.target.text, verdict: ratio === null ? 'n/a' : ratio <= goal.target.ratio ? 'met' : 'missed' };
      case 'floorRatioAtMost':
        return { ...base, target: `≤ ${goal.target.ratio} × floor`, verdict: ofFloor === null ? 'n/a' : ofFloor <= goal.target.ratio ? 'met' : 'missed' };
      case 'report':
        return { ...base, target: 'report', verdict: a === null ? 'n/a' : 'reported' };
    }
  });
}

/** The goals this run could judge or report (a ratio needs both servers), the rest left out. */
export const measuredGoals = (goals: readonly GoalRow[]): GoalRow[] => goals.filter((g) => g.verdict !== 'n/a');

/** The table: A's figure (and B's, with A/B, given two servers), then the floor and A ÷ floor. */
export function goalsMarkdown(goals: readonly GoalRow[], servers: readonly string[]): string {
  const [a, b] = servers;
  const two = b !== undefined;
  const head = ['goal', 'unit', a, ...(two ? [b, `${a}/${b}`] : []), 'floor', `${a} ÷ floor`, 'target', 'verdict'];
  const align = ['---', '---', '---:', ...(two ? ['---:', '---:'] : []), '---:', '---:', '---', '---'];
  const lines = [`| ${head.join(' | ')} |`, `|${align.join('|')}|`];
  for (const g of goals) {
    const figures = [fmt(g.a), ...(two ? [fmt(g.b), fmtRatio(g.ratio)] : []), g.floor === null ? '' : fmt(g.floor), g.ofFloor === null ? '' : fmtRatio(g.ofFloor)];
    lines.push(`| ${[g.goal, g.unit, ...figures, g.target, g.verdict].join(' | ')} |`);
  }
  return lines.join('\n');
}
