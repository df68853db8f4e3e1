// The reference's command-line client (`codex exec`, `codex queue`, the interactive `codex`)
// in a home of its own: everything it does to a thread goes through `--remote`. Its TMPDIR is
// a sibling of that home, so it does not warn that its home is under the temporary directory.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';

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

  /** The environment the client runs with, plus `extra`. */
  env(extra: Record<string, string> = {}): Record<string, string> {
    return { ...(process.env as Record<string, string>), CODEX_HOME: this.home, TMPDIR: join(this.#dir, 'tmp'), RUST_LOG: 'warn', ...extra };
  }

  /** Runs `codex ARGS…` with no input to completion (killed past the deadline). */
  run(args: string[], extraEnv: Record<string, string> = {}): Promise<CliRun> {
    const child = spawn(this.binary, args, { cwd: this.home, env: this.env(extraEnv), stdio: ['ignore', 'pipe', 'pipe'] });
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
