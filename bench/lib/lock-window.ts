// The window in which a real separate process holds `<home>/thread-writer-locks/.coordination.lock`
// exclusively, with a list probe running across it, as the lock scenarios share it:
//
//   probe ─┬── LEAD_MS ──┬──────────── hold (holdMs) ────────────┬── ops finish ── TAIL_MS ─┐
//          │  baseline   │ flock taken; scenario sends its ops   │ release                  stop
//                     holdStart                               releaseAt
//
// The reported list figures cover only requests sent during the hold; the lead and tail are
// there so the timeline chart shows the same server unhindered on either side.
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import type { AppServerClient } from './app-server-client.js';
import type { CaseRecorder } from './case-result.js';
import { holdFlock, type FlockHolder } from './flock-holder.js';
import { ListProbe, timelineSamples, windowStats } from './list-probe.js';

const LEAD_MS = 300;
const TAIL_MS = 300;

export const coordinationPath = (home: string): string => join(home, 'thread-writer-locks', '.coordination.lock');

/** Per-thread lock files on disk; `.coordination.lock` is never deleted and is not counted. */
export function lockFiles(home: string): number {
  try {
    return readdirSync(join(home, 'thread-writer-locks')).filter((name) => name.endsWith('.lock') && !name.startsWith('.')).length;
  } catch {
    return 0;
  }
}

export class LockWindow {
  readonly #probe: ListProbe;
  #holder: FlockHolder | null = null;
  #stopped = false;
  holdStart = Number.NaN;
  releaseAt = Number.NaN;

  constructor(
    client: AppServerClient,
    private readonly home: string,
    private readonly holdMs: number,
    intervalMs: number,
  ) {
    this.#probe = new ListProbe(client, intervalMs);
  }

  /** Starts the probe, lets it run LEAD_MS unhindered, then takes the flock in another process. */
  async open(): Promise<void> {
    this.#probe.start();
    await delay(LEAD_MS);
    mkdirSync(join(this.home, 'thread-writer-locks'), { recursive: true });
    this.#holder = await holdFlock(coordinationPath(this.home), 'exclusive');
    this.holdStart = this.#holder.lockedAt;
  }

  /** Waits out the rest of the hold, then releases; resolves once the holder process exited. */
  async release(): Promise<void> {
    await delay(Math.max(1, this.holdStart + this.holdMs - performance.now()));
    await this.#drop();
  }

  /** Lets the probe run TAIL_MS more, stops it, and records the hold's list figures. */
  async finish(rec: CaseRecorder, label: string): Promise<void> {
    await delay(TAIL_MS);
    this.#stopped = true;
    const samples = await this.#probe.stop();
    const stats = windowStats(samples, this.holdStart, this.releaseAt);
    rec.latency('loaded/list during hold', stats.latency);
    rec.figure('list longest gap', stats.longestGapMs, 'ms');
    rec.figure('list answered during hold', stats.answeredInWindow, 'count', 'higher');
    rec.figure('list failed', stats.failed, 'count');
    rec.check(stats.failed === 0, `${stats.failed} thread/loaded/list requests failed during the hold: ${stats.errors.join('; ') || 'no answer'}`);
    rec.figure('bench client stall max', this.#probe.clientStallMaxMs, 'ms', 'none');
    rec.raw('listSentDuringHold', stats.sent);
    rec.timeline({ label, holds: [[0, round(this.releaseAt - this.holdStart)]], samples: timelineSamples(samples, this.holdStart) });
  }

  /** Releases the flock and stops the probe if a failure skipped `release`/`finish`. */
  async dispose(): Promise<void> {
    await this.#drop();
    if (!this.#stopped) {
      this.#stopped = true;
      await this.#probe.stop();
    }
  }

  async #drop(): Promise<void> {
    if (this.#holder === null) return;
    const holder = this.#holder;
    this.#holder = null;
    // Stamped when release is asked for: the kernel drops the flock a moment later, when the
    // holder closes its fd, so "release → …" figures include that moment for every server alike.
    this.releaseAt = performance.now();
    await holder.release();
  }
}

const round = (x: number): number => Math.round(x * 100) / 100;
