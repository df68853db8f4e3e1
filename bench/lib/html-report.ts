// report.html: one self-contained page (inline CSS and SVG, no script, no network) with the
// environment, the goals, and per scenario a comparison bar chart, the latency-over-time charts
// of its cases (lock-hold windows shaded, one series per server) and its rows of the table.
import type { BenchReport } from './bench-report.js';
import type { CaseResult } from './case-result.js';
import { barChart, escapeXml, timelineChart, type BarGroup, type Series } from './svg-charts.js';
import { measuredGoals } from './goals.js';
import { fmt, fmtRatio, type SummaryRow } from './summary-table.js';

/** Server A blue, server B orange: distinguishable in colour-blind palettes too. */
export const SERVER_COLORS = ['#2563eb', '#ea580c', '#16a34a', '#9333ea'];

const STYLE = `body{font-family:system-ui,sans-serif;margin:24px;color:#111827;max-width:1200px}
table{border-collapse:collapse;margin:8px 0 16px;font-size:13px;max-width:100%}td{overflow-wrap:anywhere}td,th{border:1px solid #d1d5db;padding:3px 8px}
th{background:#f3f4f6;text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums}
.met{color:#15803d;font-weight:600}.missed{color:#b91c1c;font-weight:600}.fail{color:#b91c1c}
h2{margin-top:36px;border-bottom:1px solid #e5e7eb}svg{display:block;margin:8px 0}`;

export function renderHtml(report: BenchReport): string {
  const names = report.servers.map((s) => s.name);
  const series = names.map((name, i) => [name, SERVER_COLORS[i % SERVER_COLORS.length]!] as const);
  const body: string[] = [
    `<h1>thread-host bench — ${escapeXml(report.startedAt)}</h1>`,
    `<p>${report.pass ? 'Every case passed.' : '<span class="fail">Some cases failed (listed at the end).</span>'} Figures are medians over ${report.runs} run(s); servers ran interleaved, A B A B.</p>`,
    environmentTable(report),
  ];
  if (measuredGoals(report.goals ?? []).length > 0) body.push('<h2>Goals</h2>', goalsTable(report));
  for (const scenario of report.scenarios) {
    const rows = report.summary.filter((r) => r.scenario === scenario.name);
    if (rows.length === 0) continue;
    body.push(`<h2>${escapeXml(scenario.name)}</h2>`, `<p>${escapeXml(scenario.summary)}</p>`);
    const groups = barGroups(rows);
    if (groups.length > 0) body.push(barChart({ title: `${scenario.name}: comparison (medians)`, groups, series, unit: 'ms' }));
    for (const chart of timelines(report.results.filter((r) => r.scenario === scenario.name), names)) body.push(chart);
    body.push(summaryTable(rows, names));
  }
  const failed = report.results.filter((r) => !r.pass);
  if (failed.length > 0) {
    body.push('<h2>Failed cases</h2><ul>');
    for (const r of failed) body.push(`<li class="fail">${escapeXml(`${r.scenario} ${r.case} ${r.server} run ${r.run}: ${r.failures.join('; ')}`)}</li>`);
    body.push('</ul>');
  }
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>thread-host bench</title><style>${STYLE}</style></head><body>\n${body.join('\n')}\n</body></html>\n`;
}

/** The ms rows worth a bar: medians and p99s of latencies, and every scalar duration. */
function barGroups(rows: readonly SummaryRow[]): BarGroup[] {
  return rows
    .filter((r) => r.unit === 'ms' && !/ (p90|max)$/.test(r.figure))
    .map((r) => ({ label: `${r.case ? r.case + ' ' : ''}${r.figure}`, values: r.values }));
}

/** One chart per case that recorded a timeline, with each server's first such run. */
function timelines(results: readonly CaseResult[], names: readonly string[]): string[] {
  const cases = [...new Set(results.filter((r) => r.timeline !== null).map((r) => r.case))];
  return cases.flatMap((caseId) => {
    const series: Series[] = [];
    const holds: Array<[number, number]> = [];
    const charts: string[] = [];
    let label = '';
    names.forEach((name, i) => {
      const first = results.filter((r) => r.case === caseId && r.server === name && r.timeline !== null).sort((a, b) => a.run - b.run)[0];
      if (!first?.timeline) return;
      const t = first.timeline;
      // A per-process timeline is a chart of its own: its series are processes, not servers.
      if (t.series !== undefined) {
        const perProcess = t.series.map((s, j) => ({ name: s.name, color: SERVER_COLORS[j % SERVER_COLORS.length]!, points: s.points }));
        const title = `${t.title ?? t.label} — ${name} (run ${first.run})`;
        charts.push(timelineChart({ title, xLabel: 'ms since the race began (kills marked)', series: perProcess, holds: t.holds, marks: t.marks ?? [] }));
        return;
      }
      label = t.label;
      series.push({ name: `${name} (run ${first.run})`, color: SERVER_COLORS[i % SERVER_COLORS.length]!, points: t.samples });
      holds.push(...t.holds);
    });
    if (series.length === 0) return charts;
    const xLabel = holds.length > 0 ? 'ms since the lock was taken (request send time)' : 'ms since the measured phase began (request send time)';
    return [...charts, timelineChart({ title: `${label}: thread/loaded/list latency over time`, xLabel, series, holds })];
  });
}

function summaryTable(rows: readonly SummaryRow[], names: readonly string[]): string {
  const two = names.length === 2;
  const head = ['case', 'figure', 'unit', ...names, ...(two ? [`${names[0]}/${names[1]}`] : [])];
  const lines = [`<table><tr>${head.map((h) => `<th>${escapeXml(h)}</th>`).join('')}</tr>`];
  for (const r of rows) {
    const values = r.values.map((v, i) => `<td class="n">${r.runs ? `${v}/${r.runs[i]}` : fmt(v)}</td>`).join('');
    const unit = r.unit + (r.better === 'lower' ? ' ↓' : r.better === 'higher' ? ' ↑' : '');
    lines.push(`<tr><td>${escapeXml(r.case)}</td><td>${escapeXml(r.figure)}</td><td>${unit}</td>${values}${two ? `<td class="n">${fmtRatio(r.ratio)}</td>` : ''}</tr>`);
  }
  return lines.join('\n') + '</table>';
}

function goalsTable(report: BenchReport): string {
  const [a, b] = report.servers.map((s) => escapeXml(s.name));
  const two = b !== undefined;
  const head = ['goal', 'unit', a, ...(two ? [b, `${a}/${b}`] : []), 'target', 'verdict'];
  const lines = [`<table><tr>${head.map((h) => `<th>${h}</th>`).join('')}</tr>`];
  for (const g of measuredGoals(report.goals ?? [])) {
    const figures = [fmt(g.a), ...(two ? [fmt(g.b), fmtRatio(g.ratio)] : [])].map((f) => `<td class="n">${f}</td>`).join('');
    lines.push(`<tr><td>${escapeXml(g.goal)}</td><td>${g.unit}</td>${figures}<td>${escapeXml(g.target)}</td><td class="${g.verdict}">${g.verdict}</td></tr>`);
  }
  return lines.join('\n') + '</table>';
}

function environmentTable(report: BenchReport): string {
  const e = report.environment;
  const rows: Array<[string, string]> = [
    ['machine', `${e.cpuCount} CPUs (${e.cpuModel}), ${e.memTotalGiB} GiB, ${e.platform} ${e.osRelease}`],
    ['node', e.nodeVersion],
    ['load average (1/5/15 min)', `start ${e.loadAverageStart.join(' / ')}, end ${e.loadAverageEnd.join(' / ')}`],
    ...report.servers.map((s, i): [string, string] => [`server ${String.fromCharCode(65 + i)}: ${s.name}`, `${s.userAgent || '(no userAgent)'} — ${s.argv.join(' ')}`]),
    ['parameters', JSON.stringify(report.params)],
  ];
  return `<table>${rows.map(([k, v]) => `<tr><th>${escapeXml(k)}</th><td>${escapeXml(v)}</td></tr>`).join('')}</table>`;
}
