// The reference's command-line client (`codex exec`, `codex queue`, the interactive `codex`)
// in a home of its own: everything it does to a thread goes through `--remote`. Its TMPDIR is
// a sibling of that home, so it does not warn that its home is under the temporary directory;
// errors come without a backtrace, so that its output can be compared whole.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, onTestFinished } from 'vitest';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

const RUN_DEADLINE_MS = 60_000;

export class CodexCli {
  readonly home: string;
  readonly #dir: string;

  /** A fresh home, removed when the test finishes. */
  constructor(readonly binary: string) {
    this.#dir = mkdtempSync(join(tmpdir(), 'thread-host-clients-'));
    this.home = join(this.#dir, 'home');
    mkdirSync(this.home);
    mkdirSync(join(this.#dir, 'tmp'));
    onTestFinished(() => rmSync(this.#dir, { recursive: true, force: true }));
  }

  /** What the client's environment has on top of this process's. */
  ownEnv(): Record<string, string> {
    return { CODEX_HOME: this.home, TMPDIR: join(this.#dir, 'tmp'), RUST_LOG: 'warn', RUST_BACKTRACE: '0' };
  }

  /** Runs `codex ARGS…` with no input to completion (killed past the deadline). */
  run(args: string[], extraEnv: Record<string, string> = {}): Promise<CliRun> {
    const child = spawn(this.binary, args, { cwd: this.home, env: { ...process.env, ...this.ownEnv(), ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_DEADLINE_MS);
    return new Promise((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });
  }
}

/** `codex exec`'s stderr for a finished turn of the mock model (its reply printed there too). */
export const execTranscript = (threadId: string): string =>
  `Reading additional input from stdin...\nthread id: ${threadId}\ncodex\nDone\ntokens used\n0\n`;

/** The thread id `codex exec` printed. */
export function execThreadId(run: CliRun): string {
  const id = /^thread id: (\S+)$/m.exec(run.stderr)?.[1];
  if (id === undefined) throw new Error(`codex exec printed no thread id (exit ${run.code}):\n${run.stderr}`);
  return id;
}

/** The id `codex queue` printed, its whole output checked. */
export function queuedId(run: CliRun, threadId: string): string {
  const id = /^Queued message ([0-9a-f-]{36}) for thread /.exec(run.stdout)?.[1] ?? 'none';
  expect(run).toEqual({ code: 0, stdout: `Queued message ${id} for thread ${threadId}.\n`, stderr: '' });
  return id;
}
