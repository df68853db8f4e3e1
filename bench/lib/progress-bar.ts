// A one-line progress bar on stderr while the bench runs, redrawn at most a few times a second;
// nothing at all when stderr is not a terminal (CI logs, pipes, tests), where stdout's one JSON
// line per case already shows progress.
import { performance } from 'node:perf_hooks';

const BAR_WIDTH = 24;
const REDRAW_EVERY_MS = 200;

export class ProgressBar {
  readonly #tty: boolean;
  readonly #startedAt = performance.now();
  #done = 0;
  #fraction = 0;
  #label = '';
  #lastDraw = 0;

  constructor(
    private readonly total: number,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {
    this.#tty = stream.isTTY === true;
  }

  /** A new step starts; `label` names it (scenario, case, server, run). */
  begin(label: string): void {
    this.#label = label;
    this.#fraction = 0;
    this.#draw(true);
  }

  /** Progress within the current step, 0..1. */
  update(fraction: number): void {
    this.#fraction = Math.min(1, Math.max(0, fraction));
    this.#draw(false);
  }

  step(): void {
    this.#done += 1;
    this.#fraction = 0;
    this.#draw(true);
  }

  /** Clears the line so the final table starts clean. */
  finish(): void {
    if (this.#tty) this.stream.write('\r\u001b[2K');
  }

  /** Writes a line to stdout without it landing on the bar's line when both are the terminal. */
  printLine(text: string): void {
    this.finish();
    process.stdout.write(text + '\n');
    this.#draw(true);
  }

  #draw(force: boolean): void {
    if (!this.#tty) return;
    const now = performance.now();
    if (!force && now - this.#lastDraw < REDRAW_EVERY_MS) return;
    this.#lastDraw = now;
    const overall = Math.min(1, (this.#done + this.#fraction) / Math.max(1, this.total));
    const filled = Math.round(overall * BAR_WIDTH);
    const elapsed = Math.round((now - this.#startedAt) / 1000);
    const clock = `${Math.floor(elapsed / 60)}m${String(elapsed % 60).padStart(2, '0')}s`;
    const line = `[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${this.#done}/${this.total} ${clock}  ${this.#label}`;
    const columns = this.stream.columns ?? 100;
    this.stream.write(`\r\u001b[2K${line.slice(0, columns - 1)}`);
  }
}
