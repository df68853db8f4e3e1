// Output: one JSON line per scenario per server per run (machine-comparable, style habit 15),
// then, when two servers ran, a markdown table of medians over runs with the ratio B/A.
// A ratio above 1 means the compared server (B) took longer or scored higher than A.

/** One figure for the ratio table: which scenario, which metric, which server. */
interface Figure {
  row: string;
  metric: string;
  server: string;
  value: number;
}

/** Collects printed figures and renders the comparison table. */
export class Report {
  readonly #figures: Figure[] = [];

  /** Prints one JSON line. */
  line(fields: Record<string, unknown>): void {
    process.stdout.write(JSON.stringify(fields) + '\n');
  }

  /** Remembers a figure for the table; `row` is the scenario plus any parameter (e.g. `K=8`). */
  figure(row: string, metric: string, server: string, value: number): void {
    this.#figures.push({ row, metric, server, value });
  }

  /** Prints the markdown table comparing `a` and `b` (median over runs), if both have figures. */
  printComparison(a: string, b: string): void {
    const keys: string[] = [];
    const byKey = new Map<string, { row: string; metric: string; a: number[]; b: number[] }>();
    for (const f of this.#figures) {
      const key = `${f.row}\u0000${f.metric}`;
      let entry = byKey.get(key);
      if (!entry) {
        entry = { row: f.row, metric: f.metric, a: [], b: [] };
        byKey.set(key, entry);
        keys.push(key);
      }
      if (f.server === a) entry.a.push(f.value);
      else if (f.server === b) entry.b.push(f.value);
    }
    const lines = ['', `| scenario | metric | ${a} | ${b} | ${b}/${a} |`, '|---|---|---:|---:|---:|'];
    for (const key of keys) {
      const { row, metric, a: va, b: vb } = byKey.get(key)!;
      const ma = median(va);
      const mb = median(vb);
      lines.push(`| ${row} | ${metric} | ${fmt(ma)} | ${fmt(mb)} | ${ratio(ma, mb)} |`);
    }
    process.stdout.write(lines.join('\n') + '\n');
  }
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function ratio(a: number, b: number): string {
  if (!Number.isFinite(a) || !Number.isFinite(b)) return 'n/a';
  if (a === 0) return b === 0 ? '1.00' : '∞';
  return (b / a).toFixed(2);
}

export function fmt(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  return Math.abs(value) >= 100 ? value.toFixed(0) : Number(value.toPrecision(3)).toString();
}
