// An interactive terminal program driven as a person would: run in a detached tmux session
// of its own (a private tmux server), keys sent with `tmux send-keys`, the screen read with
// `tmux capture-pane -p`, and every wait bounded by a deadline. A failed wait throws with the
// last screen, so the test's failure shows what the program was showing.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { pollUntil } from './deadline-poll.js';

const WIDTH = 120;
const HEIGHT = 40;
const DEFAULT_DEADLINE_MS = 15_000;
// The reference's composer takes keys that arrive in one burst as a paste, in which Enter is
// a newline: text is typed, then Enter sent once the burst is over.
const PASTE_BURST_QUIET_MS = 400;

const quote = (word: string): string => `'${word.replaceAll("'", "'\\''")}'`;

export class TmuxTerminal {
  readonly #server = `thread-host-clients-${randomUUID()}`;
  readonly #statusFile: string;

  /** Starts `argv` in `cwd` with exactly `env` added; the session is killed when the test finishes. */
  constructor(argv: string[], options: { cwd: string; env: Record<string, string> }) {
    const dir = mkdtempSync(join(tmpdir(), 'thread-host-tmux-'));
    this.#statusFile = join(dir, 'exit-status');
    // The exit status comes from a shell that waits for the program itself: the pane alone would
    // report it only once every process holding the terminal has closed it, which a helper the
    // program left behind may not do.
    const program = ['env', ...Object.entries(options.env).map(([key, value]) => `${key}=${value}`), ...argv].map(quote).join(' ');
    const command = `${program}; echo $? > ${quote(this.#statusFile)}`;
    this.#tmux('new-session', '-d', '-s', 'client', '-x', String(WIDTH), '-y', String(HEIGHT), '-c', options.cwd, command);
    // Once the program exits, its last screen stays readable.
    this.#tmux('set-option', '-t', 'client', 'remain-on-exit', 'on');
    onTestFinished(() => {
      try {
        this.#tmux('kill-server');
      } catch {
        // Already gone.
      }
      rmSync(dir, { recursive: true, force: true });
    });
  }

  /** The visible screen, trailing blanks of each line and trailing empty lines removed. */
  screen(): string {
    const text = this.#tmux('capture-pane', '-p', '-t', 'client');
    return text.split('\n').map((line) => line.trimEnd()).join('\n').trimEnd();
  }

  /**
   * Everything the program wrote that is still kept (the scrollback too), wrapped lines joined,
   * up to tmux's own note that the program has exited.
   */
  transcript(): string {
    const text = this.#tmux('capture-pane', '-p', '-J', '-S', '-', '-t', 'client');
    const lines = text.split('\n').map((line) => line.trimEnd());
    const dead = lines.findIndex((line) => line.startsWith('Pane is dead ('));
    return (dead < 0 ? lines : lines.slice(0, dead)).join('\n').trimEnd();
  }

  /** The screen once `done` holds for it. */
  waitFor(done: (screen: string) => boolean, what: string, deadlineMs = DEFAULT_DEADLINE_MS): Promise<string> {
    return pollUntil(() => this.screen(), done, { deadlineMs, what: `screen with ${what}`, describe: (screen) => screen });
  }

  /** The screen once it shows `text`. */
  waitForText(text: string, deadlineMs = DEFAULT_DEADLINE_MS): Promise<string> {
    return this.waitFor((screen) => screen.includes(text), JSON.stringify(text), deadlineMs);
  }

  /** Named keys (`Enter`, `Escape`, `C-u`, `Down`…), one after the other. */
  press(...keys: string[]): void {
    for (const key of keys) this.#tmux('send-keys', '-t', 'client', key);
  }

  /** Types `text` (literally); resolves once the composer shows it and the burst is over. */
  async type(text: string): Promise<void> {
    this.#tmux('send-keys', '-t', 'client', '-l', text);
    await this.waitForText(text);
    await new Promise((resolve) => setTimeout(resolve, PASTE_BURST_QUIET_MS));
  }

  /** Types `text`, then Enter. */
  async submit(text: string): Promise<void> {
    await this.type(text);
    this.press('Enter');
  }

  /** The program's exit status once it has exited. */
  async exitStatus(deadlineMs = DEFAULT_DEADLINE_MS): Promise<number> {
    const written = (): string => {
      try {
        return readFileSync(this.#statusFile, 'utf8');
      } catch {
        return '';
      }
    };
    const status = await pollUntil(written, (text) => text.endsWith('\n'), { deadlineMs, what: 'exit', describe: () => this.screen() });
    return Number(status.trim());
  }

  #tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.#server, ...args], { encoding: 'utf8' });
  }
}
