// Case results folded into one row per (scenario, case, figure): the median over runs for each
// server, and with two servers the ratio A/B (below 1: A's figure is smaller). Latency
// summaries expand to p50/p90/p99/max rows plus their count; `pass` counts passing runs.
import type { Better, CaseResult, Unit } from './case-result.js';

/** One row of the summary. `values[i]` is server i's median, null when it has none (JSON has no NaN). */
export interface SummaryRow {
  scenario: string;
  case: string;
  figure: string;
  unit: Unit | 'runs';
  better: Better;
  values: Array<number | null>;
  /** For `pass` rows: runs per server, so values read "passed of runs". */
  runs?: number[];
  ratio: number | null;
}

const PERCENTILES = ['p50', 'p90', 'p99', 'max'] as const;

export function summarize(results: readonly CaseResult[], servers: readonly string[]): SummaryRow[] {
  const rows = new Map<string, { row: Omit<SummaryRow, 'values' | 'ratio' | 'runs'>; samples: number[][] }>();
  const add = (r: CaseResult, figure: string, unit: Unit, better: Better, value: number): void => {
    const key = `${r.scenario}\u0000${r.case}\u0000${figure}`;
    let entry = rows.get(key);
    if (!entry) {
      entry = { row: { scenario: r.scenario, case: r.case, figure, unit, better }, samples: servers.map(() => []) };
      rows.set(key, entry);
    }
    const index = servers.indexOf(r.server);
    if (index >= 0 && Number.isFinite(value)) entry.samples[index]!.push(value);
  };
  const passes = new Map<string, { scenario: string; case: string; passed: number[]; runs: number[] }>();
  for (const r of results) {
    const key = `${r.scenario}\u0000${r.case}`;
    if (!passes.has(key)) passes.set(key, { scenario: r.scenario, case: r.case, passed: servers.map(() => 0), runs: servers.map(() => 0) });
    const p = passes.get(key)!;
    const index = servers.indexOf(r.server);
    p.runs[index] = (p.runs[index] ?? 0) + 1;
    if (r.pass) p.passed[index] = (p.passed[index] ?? 0) + 1;
    for (const [name, s] of Object.entries(r.latency)) {
      for (const pct of PERCENTILES) add(r, `${name} ${pct}`, 'ms', 'lower', s[pct]);
      add(r, `${name} n`, 'count', 'none', s.count);
    }
    for (const [name, f] of Object.entries(r.figures)) add(r, name, f.unit, f.better, f.value);
  }
  const out: SummaryRow[] = [];
  for (const p of passes.values()) {
    out.push({ scenario: p.scenario, case: p.case, figure: 'pass', unit: 'runs', better: 'higher', values: p.passed, runs: p.runs, ratio: null });
    for (const { row, samples } of rows.values()) {
      if (row.scenario !== p.scenario || row.case !== p.case) continue;
      const values = samples.map((v) => (v.length === 0 ? null : median(v)));
      out.push({ ...row, values, ratio: values.length === 2 ? ratioOf(values[0]!, values[1]!) : null });
    }
  }
  return out;
}

/** The summary as a markdown table; with two servers, a ratio column A/B. */
export function markdownTable(rows: readonly SummaryRow[], servers: readonly string[]): string {
  const two = servers.length === 2;
  const head = ['scenario', 'case', 'figure', 'unit', ...servers, ...(two ? [`${servers[0]}/${servers[1]}`] : [])];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i < 4 ? '---' : '---:')).join('|')}|`];
  for (const row of rows) {
    const cells = row.values.map((v, i) => (row.runs ? `${v}/${row.runs[i]}` : fmt(v)));
    const unit = row.unit + (row.better === 'lower' ? ' ↓' : row.better === 'higher' ? ' ↑' : '');
    lines.push(`| ${[row.scenario, row.case, row.figure, unit, ...cells, ...(two ? [fmtRatio(row.ratio)] : [])].join(' | ')} |`);
  }
  return lines.join('\n');
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** a / b, with 0/0 = 1 and a/0 = Infinity; null when either is missing. */
export function ratioOf(a: number | null, b: number | null): number | null {
  if (a === null || b === null || !Number.isFinite(a) || !Number.isFinite(b)) return null;
  if (b === 0) return a === 0 ? 1 : Number.POSITIVE_INFINITY;
  return a / b;
}

/** Three significant figures below 100, whole numbers above: enough for noisy timings. */
export function fmt(value: number | null): string {
  if (value === null || !Number.isFinite(value)) return 'n/a';
  return Math.abs(value) >= 100 ? value.toFixed(0) : Number(value.toPrecision(3)).toString();
}

export function fmtRatio(ratio: number | null): string {
  if (ratio === null) return 'n/a';
  if (!Number.isFinite(ratio)) return '∞';
  return ratio >= 0.01 || ratio === 0 ? Number(ratio.toPrecision(2)).toString() : ratio.toExponential(1);
}
