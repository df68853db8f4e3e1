// The window in which another holder has the home's writer coordination lock (flock: a real
// separate process holds `thread-writer-locks/.coordination.lock` exclusively; lockfile: this
// process holds `thread-writer-lockdirs/.coordination.lock/` with a live heartbeat), with a list
// probe running across it, as the lock scenarios share it:
//
//   probe ─┬── lead (holdMs) ──┬─ holder ─┬──────── hold (holdMs) ────────┬── ops finish ── TAIL_MS ─┐
//          │  the floor        │  starts  │ flock taken; scenario's ops   │ release                  stop
//                          leadEnd    holdStart                       releaseAt
//
// The list figures cover the requests sent during the hold and after the release, and, as the
// floor they are compared with, those sent in the lead: the same probe against the same idle
// server for as long as the hold, before the holder process starts (its start takes a core for
// a while). On a 2-core machine the floor's p99 is well above its p50: wake-ups after 15 ms idle.
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
  #probeStart = Number.NaN;
  #leadEnd = Number.NaN;
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

  /** Starts the probe, lets it run unhindered as long as the hold will last, then takes coordination from outside the server. */
  async open(): Promise<void> {
    this.#probeStart = performance.now();
    this.#probe.start();
    await delay(Math.max(LEAD_MS, this.holdMs));
    this.#leadEnd = performance.now();
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
    rec.latency('loaded/list before the hold (floor)', windowStats(samples, this.#probeStart, this.#leadEnd).latency);
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
