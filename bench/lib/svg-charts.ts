// Two hand-drawn SVG charts for the HTML report, so the report is one self-contained file with
// no script and no network: latency over time (log y, lock-hold windows shaded, one series per
// server) and grouped horizontal bars (log x, one bar per server). Latencies span 0.1 ms to
// seconds between servers, so both value axes are logarithmic.
import { fmt } from './summary-table.js';

/** One server's points: [x ms, latency ms or null for a failed request]. */
export interface Series {
  name: string;
  color: string;
  points: ReadonlyArray<readonly [number, number | null]>;
}

/** One labelled group of bars, a value per server (null: not measured). */
export interface BarGroup {
  label: string;
  values: ReadonlyArray<number | null>;
}

const MARGIN = { left: 64, right: 16, top: 34, bottom: 42 };

export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Decade bounds covering [min, max] of positive values. */
function decades(values: readonly number[], floor = 0.01): [number, number] {
  const positive = values.filter((v) => Number.isFinite(v) && v > 0);
  if (positive.length === 0) return [-1, 1];
  const lo = Math.floor(Math.log10(Math.max(floor, Math.min(...positive))));
  const hi = Math.ceil(Math.log10(Math.max(...positive)));
  return [lo, Math.max(hi, lo + 1)];
}

const tickLabel = (exp: number): string => (exp >= 0 ? String(10 ** exp) : (10 ** exp).toFixed(-exp));
const n = (x: number): string => x.toFixed(1);

export function timelineChart(options: {
  title: string;
  xLabel: string;
  series: readonly Series[];
  holds: ReadonlyArray<readonly [number, number]>;
  /** Instants drawn as red vertical lines labelled `kill` (the handoff scenario's kills). */
  marks?: readonly number[];
  width?: number;
  height?: number;
}): string {
  const width = options.width ?? 900;
  const height = options.height ?? 300;
  const plotW = width - MARGIN.left - MARGIN.right;
  const plotH = height - MARGIN.top - MARGIN.bottom;
  const marks = options.marks ?? [];
  const xs = [...options.series.flatMap((s) => s.points.map((p) => p[0])), ...options.holds.flat(), ...marks];
  const minX = Math.min(...xs, 0);
  const maxX = Math.max(...xs, minX + 1);
  const [lo, hi] = decades(options.series.flatMap((s) => s.points.map((p) => p[1] ?? Number.NaN)));
  const x = (v: number) => MARGIN.left + ((v - minX) / (maxX - minX)) * plotW;
  const y = (v: number) => MARGIN.top + plotH - ((Math.log10(Math.max(v, 10 ** lo)) - lo) / (hi - lo)) * plotH;
  const parts: string[] = [];
  for (const [start, end] of options.holds) {
    parts.push(`<rect x="${n(x(start))}" y="${MARGIN.top}" width="${n(Math.max(1, x(end) - x(start)))}" height="${plotH}" fill="#9ca3af" fill-opacity="0.18"/>`);
  }
  if (options.holds.length > 0) {
    parts.push(`<text x="${n(x(options.holds[0]![0]) + 4)}" y="${MARGIN.top + 12}" font-size="11" fill="#4b5563">lock held by another process</text>`);
  }
  for (const at of marks) {
    parts.push(`<line x1="${n(x(at))}" x2="${n(x(at))}" y1="${MARGIN.top}" y2="${MARGIN.top + plotH}" stroke="#dc2626" stroke-dasharray="4 3"/>`);
    parts.push(`<text x="${n(x(at) + 3)}" y="${MARGIN.top + 24}" font-size="10" fill="#dc2626">kill</text>`);
  }
  parts.push(...yAxis(lo, hi, y, width, 'latency ms (log)'));
  for (const t of linearTicks(minX, maxX, 8)) {
    parts.push(`<line x1="${n(x(t))}" x2="${n(x(t))}" y1="${MARGIN.top + plotH}" y2="${MARGIN.top + plotH + 4}" stroke="#6b7280"/>`);
    parts.push(`<text x="${n(x(t))}" y="${MARGIN.top + plotH + 16}" font-size="11" text-anchor="middle" fill="#374151">${t}</text>`);
  }
  parts.push(`<text x="${MARGIN.left + plotW / 2}" y="${height - 6}" font-size="11" text-anchor="middle" fill="#374151">${escapeXml(options.xLabel)}</text>`);
  for (const s of options.series) {
    const answered = s.points.filter((p): p is readonly [number, number] => p[1] !== null);
    if (answered.length > 1) {
      parts.push(`<polyline fill="none" stroke="${s.color}" stroke-width="1" stroke-opacity="0.55" points="${answered.map((p) => `${n(x(p[0]))},${n(y(p[1]))}`).join(' ')}"/>`);
    }
    for (const [px, py] of s.points) {
      if (py === null) {
        parts.push(`<text x="${n(x(px))}" y="${MARGIN.top + 10}" font-size="11" text-anchor="middle" fill="${s.color}">×</text>`);
      } else {
        parts.push(`<circle cx="${n(x(px))}" cy="${n(y(py))}" r="1.8" fill="${s.color}"/>`);
      }
    }
  }
  parts.push(...legend(options.series.map((s) => [s.name, s.color] as const), width));
  return svg(width, height, options.title, parts);
}

export function barChart(options: { title: string; groups: readonly BarGroup[]; series: ReadonlyArray<readonly [string, string]>; unit: string; width?: number }): string {
  const width = options.width ?? 900;
  const labelW = 300;
  const barH = 11;
  const groupGap = 9;
  const perGroup = options.series.length * (barH + 2) + groupGap;
  const height = MARGIN.top + options.groups.length * perGroup + MARGIN.bottom;
  const plotW = width - labelW - MARGIN.right - 60; // room for the value after the longest bar
  const [lo, hi] = decades(options.groups.flatMap((g) => g.values.map((v) => v ?? Number.NaN)));
  const x = (v: number) => labelW + ((Math.log10(Math.max(v, 10 ** lo)) - lo) / (hi - lo)) * plotW;
  const parts: string[] = [];
  const bottom = height - MARGIN.bottom;
  for (let e = lo; e <= hi; e += 1) {
    parts.push(`<line x1="${n(x(10 ** e))}" x2="${n(x(10 ** e))}" y1="${MARGIN.top - 4}" y2="${bottom}" stroke="#e5e7eb"/>`);
    parts.push(`<text x="${n(x(10 ** e))}" y="${bottom + 14}" font-size="11" text-anchor="middle" fill="#374151">${tickLabel(e)}</text>`);
  }
  parts.push(`<text x="${labelW + plotW / 2}" y="${height - 8}" font-size="11" text-anchor="middle" fill="#374151">${escapeXml(options.unit)} (log)</text>`);
  options.groups.forEach((group, g) => {
    const top = MARGIN.top + g * perGroup;
    parts.push(`<text x="${labelW - 8}" y="${top + (perGroup - groupGap) / 2 + 4}" font-size="11" text-anchor="end" fill="#111827">${escapeXml(group.label)}</text>`);
    group.values.forEach((value, i) => {
      const barY = top + i * (barH + 2);
      const [, color] = options.series[i]!;
      if (value === null || !Number.isFinite(value)) {
        parts.push(`<text x="${labelW + 2}" y="${barY + barH - 2}" font-size="10" fill="#6b7280">n/a</text>`);
        return;
      }
      const end = value > 0 ? x(value) : labelW + 1;
      parts.push(`<rect x="${labelW}" y="${barY}" width="${n(Math.max(1, end - labelW))}" height="${barH}" fill="${color}"/>`);
      parts.push(`<text x="${n(end + 4)}" y="${barY + barH - 2}" font-size="10" fill="#374151">${escapeXml(fmt(value))}</text>`);
    });
  });
  parts.push(...legend(options.series, width));
  return svg(width, height, options.title, parts);
}

function yAxis(lo: number, hi: number, y: (v: number) => number, width: number, label: string): string[] {
  const parts: string[] = [];
  for (let e = lo; e <= hi; e += 1) {
    const yy = n(y(10 ** e));
    parts.push(`<line x1="${MARGIN.left}" x2="${width - MARGIN.right}" y1="${yy}" y2="${yy}" stroke="#e5e7eb"/>`);
    parts.push(`<text x="${MARGIN.left - 6}" y="${yy}" dy="4" font-size="11" text-anchor="end" fill="#374151">${tickLabel(e)}</text>`);
  }
  parts.push(`<text transform="translate(14 ${MARGIN.top + 90}) rotate(-90)" font-size="11" text-anchor="middle" fill="#374151">${label}</text>`);
  return parts;
}

function legend(entries: ReadonlyArray<readonly [string, string]>, width: number): string[] {
  return entries.flatMap(([name, color], i) => {
    const lx = width - MARGIN.right - 170 * (entries.length - i);
    return [
      `<rect x="${lx}" y="8" width="12" height="12" fill="${color}"/>`,
      `<text x="${lx + 16}" y="18" font-size="12" fill="#111827">${escapeXml(name)}</text>`,
    ];
  });
}

function svg(width: number, height: number, title: string, parts: string[]): string {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" role="img">`,
    `<title>${escapeXml(title)}</title>`,
    `<text x="${MARGIN.left}" y="18" font-size="13" font-weight="600" fill="#111827">${escapeXml(title)}</text>`,
    ...parts,
    '</svg>',
  ].join('\n');
}

/** Round ticks (1, 2 or 5 × 10^k apart) across [min, max]. */
function linearTicks(min: number, max: number, count: number): number[] {
  const raw = (max - min) / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? raw;
  const ticks: number[] = [];
  for (let t = Math.ceil(min / step) * step; t <= max; t += step) ticks.push(Math.round(t));
  return ticks;
}
