// One process slot of the handoff race: a server process (and, after a kill, its replacement)
// looping `rounds` times over the threads in a seeded random order, each time
//
//   thread/resume ──(already has an active writer / is closing: jittered backoff, retry)──┐
//        │ acquired                                                                     │
//        v                                                                              │
//   turn/start → turn/completed → thread/unsubscribe → thread/closed ──> next thread <──┘
//
// A kill (from the scenario's kill loop) makes whatever the slot awaits fail at once; the slot
// records the cut turn, if one was started, starts a replacement on the same home (the slot's
// own, on the PostgreSQL store, where each host has one) and goes on with the same thread.
// Every wait has a deadline, retries are bounded in count and time, and the whole loop stops
// at the race's end time.
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { AppServerClient } from './app-server-client.js';
import type { SentTurn } from './handoff-verdict.js';
import { ListProbe, type ProbeSample } from './list-probe.js';
import type { ServerCommand } from './server-command.js';
import { firstLine } from '../scenarios/scenario.js';

const STEP_DEADLINE_MS = 30_000;
/** Retries of one acquisition; with the backoff cap that is minutes, far past any fair wait. */
const MAX_ATTEMPTS = 5_000;
/** First backoff, doubling per failed try up to the cap; each is jittered ×[0.5, 1.5) so racers spread. */
const BACKOFF_BASE_MS = 2;
const BACKOFF_CAP_MS = 50;
/** Errors that mean "another process owns it, or is letting it go": wait and retry. */
const RETRYABLE = /already has an active writer|is closing|timed out waiting for the thread writer coordination lock|Server overloaded/;

/** A successful acquisition: when the slot first tried, when it got the thread, in how many tries. */
export interface Acquisition {
  slot: number;
  threadId: string;
  firstTryAt: number;
  acquiredAt: number;
  attempts: number;
}

/** What every slot shares: the homes, the threads, the clock's end, and where results go. */
export interface RaceShared {
  /** The home slot `index` runs its processes in: one for all on the files store, one each on PostgreSQL. */
  homeOf(index: number): string;
  threads: readonly string[];
  rounds: number;
  endAt: number;
  probeIntervalMs: number;
  random: () => number;
  sent: SentTurn[];
  acquisitions: Acquisition[];
  /** A server process started (the lock sampler watches it). */
  onProcess(pid: number, label: string): void;
  fail(reason: string): void;
}

type StepEnd = 'done' | 'killed' | 'failed';

export class HandoffSlot {
  readonly #shared: RaceShared;
  #client: AppServerClient | null = null;
  #probe: ListProbe | null = null;
  #generation = 0;
  #seq = 0;
  /** Set by `kill` until the replacement is up: a failed await then means "cut", not "broken". */
  #killed = false;
  /** Turns completed (acknowledged) by this slot, by arrival time: its share and its starvation. */
  readonly completions: number[] = [];
  readonly probeSamples: ProbeSample[] = [];
  /** Probe requests cut by a kill of their process: expected, and not counted as failures. */
  probesCutByKill = 0;
  /** The longest the bench's own event loop was late while this slot probed (noise, not the server). */
  clientStallMaxMs = 0;
  /** When each replacement after a kill answered initialize. */
  readonly restartedAt: number[] = [];
  /** The thread this slot's process was granted and has not seen closed yet; null between. */
  holding: string | null = null;
  label = '';
  userAgent = '';
  finishedAt = Number.NaN;

  constructor(
    readonly index: number,
    readonly server: ServerCommand,
    shared: RaceShared,
  ) {
    this.#shared = shared;
  }

  get pid(): number | undefined {
    return this.#client?.pid;
  }

  /** Starts the first process; the race starts once every slot has one. */
  async start(): Promise<void> {
    await this.#spawn();
  }

  /** Runs the slot's rounds; resolves when done, out of time, or stopped by a failure. */
  async run(): Promise<void> {
    const { threads, rounds, random } = this.#shared;
    try {
      for (let round = 0; round < rounds; round += 1) {
        for (const threadId of shuffled(threads, random)) {
          if (!(await this.#handoffSurvivingKills(threadId))) return;
        }
      }
    } finally {
      this.finishedAt = performance.now();
    }
  }

  /** SIGKILLs the current process group (the slot replaces it). Returns the pid killed. */
  kill(): number | undefined {
    const pid = this.#client?.pid;
    if (pid === undefined || this.#killed || !Number.isNaN(this.finishedAt)) return undefined;
    this.#killed = true;
    void this.#stopProbe(/*killed*/ true);
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      return undefined; // already gone
    }
    return pid;
  }

  /** Ends stdin and waits for a clean exit; false when the server did not exit 0. */
  async close(): Promise<boolean> {
    await this.#stopProbe(/*killed*/ false);
    const exit = await this.#client?.close();
    this.#client = null;
    return exit === undefined || exit.code === 0;
  }

  /** One handoff of `threadId`, redone after each kill, until it is done or cannot be. */
  async #handoffSurvivingKills(threadId: string): Promise<boolean> {
    for (;;) {
      if (performance.now() >= this.#shared.endAt) {
        this.#shared.fail(`${this.label}: the race's time budget ran out before its rounds were done`);
        return false;
      }
      const end = await this.#handoff(threadId);
      if (end === 'done') return true;
      if (end === 'failed') return false;
      await this.#client?.close(0);
      await this.#spawn();
      this.restartedAt.push(performance.now());
    }
  }

  async #handoff(threadId: string): Promise<StepEnd> {
    const client = this.#client!;
    const firstTryAt = performance.now();
    let attempts = 0;
    for (;;) {
      attempts += 1;
      try {
        await client.request('thread/resume', { threadId, excludeTurns: true }, STEP_DEADLINE_MS);
        break;
      } catch (error) {
        if (this.#killed) return 'killed';
        const text = firstLine(error);
        if (!RETRYABLE.test(text) || attempts >= MAX_ATTEMPTS || performance.now() >= this.#shared.endAt) {
          this.#shared.fail(`${this.label}: thread/resume ${threadId} (try ${attempts}): ${text}`);
          return 'failed';
        }
        const backoff = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.min(attempts - 1, 16));
        await delay(backoff * (0.5 + this.#shared.random()));
      }
    }
    this.#shared.acquisitions.push({ slot: this.index, threadId, firstTryAt, acquiredAt: performance.now(), attempts });
    this.holding = threadId;

    this.#seq += 1;
    // Brackets end the token, so "[hx 1.1 2]" is never found inside "[hx 1.1 21]".
    const token = `[hx ${this.index}.${this.#generation} ${this.#seq}]`;
    const turn: SentTurn = { threadId, token, turnId: null, process: this.label, outcome: 'cut', status: null };
    try {
      const completed = client.waitFor('turn/completed', threadId, STEP_DEADLINE_MS);
      this.#shared.sent.push(turn); // from here on, the turn may be in the rollout
      const reply = await client.request('turn/start', { threadId, input: [{ type: 'text', text: `handoff ${token}`, text_elements: [] }] }, STEP_DEADLINE_MS);
      turn.turnId = String(reply.turn?.id ?? '') || null;
      const { params, at } = await completed;
      turn.outcome = 'acknowledged';
      turn.status = String(params.turn?.status);
      this.completions.push(at);
      if (turn.status !== 'completed') this.#shared.fail(`${this.label}: thread ${threadId} turn ${turn.turnId} ended ${turn.status}`);
      const closed = client.waitFor('thread/closed', threadId, STEP_DEADLINE_MS);
      const { status } = await client.request('thread/unsubscribe', { threadId }, STEP_DEADLINE_MS);
      if (status !== 'unsubscribed') throw new Error(`thread/unsubscribe ${threadId}: ${status}`);
      await closed;
      this.holding = null;
      return 'done';
    } catch (error) {
      if (this.#killed) return 'killed';
      this.#shared.fail(`${this.label}: thread ${threadId}: ${firstLine(error)}`);
      return 'failed';
    }
  }

  async #spawn(): Promise<void> {
    this.#generation += 1;
    this.holding = null;
    const client = await AppServerClient.start(this.server, this.#shared.homeOf(this.index));
    this.#client = client;
    // Only now: until the replacement is up, `kill` finds the slot still killed and leaves it be.
    this.#killed = false;
    this.userAgent = client.userAgent;
    this.label = `p${this.index}.${this.#generation} ${this.server.name} pid ${client.pid}`;
    this.#shared.onProcess(client.pid!, this.label);
    this.#probe = new ListProbe(client, this.#shared.probeIntervalMs);
    this.#probe.start();
  }

  async #stopProbe(killed: boolean): Promise<void> {
    const probe = this.#probe;
    this.#probe = null;
    if (probe === null) return;
    const samples = await probe.stop();
    this.clientStallMaxMs = Math.max(this.clientStallMaxMs, probe.clientStallMaxMs);
    for (const s of samples) {
      if (killed && s.at === null) this.probesCutByKill += 1;
      else this.probeSamples.push(s);
    }
  }
}

/** A Fisher–Yates shuffle drawn from the race's seeded generator. */
function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
