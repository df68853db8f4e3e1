// The window in which another holder has the home's writer coordination lock (flock: a real
// separate process holds `thread-writer-locks/.coordination.lock` exclusively; lockfile: this
// process holds `thread-writer-lockdirs/.coordination.lock/` with a live heartbeat), with a list
// probe running across it, as the lock scenarios share it:
//
//   probe ─┬── LEAD_MS ──┬──────────── hold (holdMs) ────────────┬── ops finish ── TAIL_MS ─┐
//          │  baseline   │ flock taken; scenario sends its ops   │ release                  stop
//                     holdStart                               releaseAt
//
// The reported list figures cover only requests sent during the hold; the lead and tail are
// there so the timeline chart shows the same server unhindered on either side.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import type { AppServerClient } from './app-server-client.js';
import type { CaseRecorder } from './case-result.js';
import type { WriterLockBackendKind } from '../../src/main/config/lock-backend-config.js';
import { holdCoordination, type CoordinationHolder } from './coordination-holder.js';
import { ListProbe, timelineSamples, windowStats } from './list-probe.js';

const LEAD_MS = 300;
const TAIL_MS = 300;

export const coordinationPath = (home: string): string => join(home, 'thread-writer-locks', '.coordination.lock');

/** Per-thread locks on disk (flock files or lockfile directories); coordination is not counted. */
export function lockFiles(home: string): number {
  return ['thread-writer-locks', 'thread-writer-lockdirs'].reduce((sum, dir) => {
    try {
      return sum + readdirSync(join(home, dir)).filter((name) => name.endsWith('.lock') && !name.startsWith('.')).length;
    } catch {
      return sum;
    }
  }, 0);
}

export class LockWindow {
  readonly #probe: ListProbe;
  #holder: CoordinationHolder | null = null;
  #stopped = false;
  holdStart = Number.NaN;
  releaseAt = Number.NaN;

  constructor(
    client: AppServerClient,
    private readonly home: string,
    private readonly backend: WriterLockBackendKind,
    private readonly holdMs: number,
    intervalMs: number,
  ) {
    this.#probe = new ListProbe(client, intervalMs);
  }

  /** Starts the probe, lets it run LEAD_MS unhindered, then takes coordination from outside the server. */
  async open(): Promise<void> {
    this.#probe.start();
    await delay(LEAD_MS);
    this.#holder = await holdCoordination(this.home, this.backend);
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
    // From the release to the probe's end: the waiting operations all proceed at once here,
    // the moment a host that serves them in one go stalls its other requests.
    rec.latency('loaded/list after release', windowStats(samples, this.releaseAt, performance.now()).latency);
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
