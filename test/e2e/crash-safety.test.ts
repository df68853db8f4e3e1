// SIGKILL the host at random points during turns, again and again on one home, and hold every
// new process to what the previous one acknowledged:
//   - every thread that had a completed turn resumes at once (the dead process's flock is gone),
//     and the kernel shows the new process as its only writer;
//   - every turn seen before comes back exactly as it was, and a `turn/completed` the client
//     received is never lost;
//   - the turn the kill cut comes back `interrupted` (or `completed`, when its last line landed
//     before the kill but its notification did not), or is absent if nothing of it was written;
//   - a torn last line (a write cut short, injected here since a SIGKILL rarely lands inside one
//     write(2)) never breaks a resume.
// On the lockfile backend a killed host's lock directories stay fresh until lockfile_stale_ms
// passes, so each resume there retries `already has an active writer` until the takeover, which
// must come within the stale time plus one heartbeat and a margin.
// The run is seeded; set THREAD_HOST_CRASH_SEED to replay a printed seed.
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { WriterLockBackendKind } from '../../src/main/config/lock-backend-config.js';
import { LOCK_BACKENDS, TEST_LOCKFILE_STALE_MS, TEST_LOCKFILE_UPDATE_MS, lockDir as lockDirOf, withBackend } from '../helpers/lock-backends.js';
import { startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { heldFlocks } from '../../bench/lib/proc-locks.js';
import { TestServer, type Message } from '../helpers/test-server.js';
import { mulberry32 } from '../../bench/lib/seeded-random.js';

// Each lockfile iteration waits out the stale time (3 s) once, so it runs fewer of them.
const ITERATIONS: Record<WriterLockBackendKind, number> = { flock: 50, lockfile: 12 };
// With few iterations, lockfile grows its threads faster, so every kill has turns to cut (a
// takeover costs one stale wait per kill however many threads wait on it).
const NEW_THREAD_CHANCE: Record<WriterLockBackendKind, number> = { flock: 0.3, lockfile: 0.8 };
// A takeover comes once the dead host's last heartbeat is lockfile_stale_ms old.
const TAKEOVER_DEADLINE_MS = TEST_LOCKFILE_STALE_MS + TEST_LOCKFILE_UPDATE_MS + 5_000;
const TAKEOVER_RETRY_MS = 100;
const MAX_THREADS = 6;
// The kill lands this long after the turns were accepted: from before the actor ran them to
// after they completed.
const MAX_KILL_DELAY_MS = 100;
// Model answers stall this long; a quarter stall for good, so some kills surely land mid-turn.
const MAX_SHORT_STALL_MS = 30;
const LONG_STALL_MS = 10_000;
// The margin over the run's time alone is for a busy CI machine: one shared with other jobs
// (load average 20 on 2 cores was seen) stretches the flock run several times over, and the
// lockfile run adds up to 10 stale waits of 3 s.
const TEST_TIMEOUT_MS = 180_000;
const SEED = Number(process.env.THREAD_HOST_CRASH_SEED ?? Date.now() % 2 ** 31);

interface TrackedThread {
  id: string;
  path: string;
  /** Turns as the last successful resume returned them: the durable record so far. */
  durable: Message[];
  /** The turn started in the process that was then killed. */
  pending: { id: string; text: string; acknowledged: boolean } | null;
  /** A resume must succeed: a turn was acknowledged, or an earlier resume succeeded. */
  mustResume: boolean;
}

/** What the run went through, printed at the end. */
interface Tally {
  resumes: number;
  acknowledged: number;
  cutInterrupted: number;
  cutCompleted: number;
  cutAbsent: number;
  tornTails: number;
  /** lockfile: the longest a resume was refused before a dead host's lock went stale. */
  longestTakeoverMs: number;
}

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel({ reply: 'Done' });
});
afterAll(() => mock.close());

describe.each(LOCK_BACKENDS)('%s backend', (backend) => {
  test(`${ITERATIONS[backend]} SIGKILLs at random points during turns lose no acknowledged turn and never block a resume past the lock's life`, async () => {
    console.log(`crash-safety seed=${SEED} (THREAD_HOST_CRASH_SEED=${SEED} replays it)`);
    const random = mulberry32(SEED);
    const home = mkdtempSync(join(tmpdir(), 'thread-host-crash-'));
    const lockDir = lockDirOf(home, backend);
    const threads: TrackedThread[] = [];
    const tally: Tally = { resumes: 0, acknowledged: 0, cutInterrupted: 0, cutCompleted: 0, cutAbsent: 0, tornTails: 0, longestTakeoverMs: 0 };
    const started = Date.now();
    try {
      for (let iteration = 0; iteration < ITERATIONS[backend]; iteration += 1) {
        // A crash inside a write leaves half a line; the next process must read past it.
        const materialized = threads.filter((t) => existsSync(t.path));
        if (materialized.length > 0 && random() < 0.2) {
          appendFileSync(materialized[Math.floor(random() * materialized.length)]!.path, '{"timestamp":"2026-01-01T00:00:00.000Z","type":"event_msg","payl');
          tally.tornTails += 1;
        }
        const server = await TestServer.start({
          home,
          modelUrl: mock.url,
          rootConfig: withBackend(backend),
          keepConfig: iteration > 0,
          env: { THREAD_HOST_WORKERS: '1' },
        });
        const loaded: TrackedThread[] = [];
        for (const thread of [...threads]) {
          const reply = await resumeTakingOver(server, backend, thread.id, tally);
          if ('error' in reply) {
            // Only a thread that never reached the disk may be missing; it is forgotten.
            expect([thread.mustResume, reply.error]).toEqual([false, { code: -32600, message: `no rollout found for thread id ${thread.id}` }]);
            threads.splice(threads.indexOf(thread), 1);
            continue;
          }
          checkResumed(thread, reply.result.thread.turns, tally);
          loaded.push(thread);
          tally.resumes += 1;
        }
        if (backend === 'flock') {
          // The kernel agrees: the new process, and nobody else, holds every resumed thread.
          const held = heldFlocks(new Set([server.child.pid!]), lockDir).filter((lock) => !lock.path.endsWith('.coordination.lock'));
          expect(held.map((lock) => [basename(lock.path), lock.deleted]).sort()).toEqual(loaded.map((t) => [`${t.id}.lock`, false]).sort());
        } else {
          // Every resumed thread has its lock directory (taken over, or left by nobody).
          const present = new Set(existsSync(lockDir) ? readdirSync(lockDir) : []);
          expect(loaded.filter((t) => !present.has(`${t.id}.lock`)).map((t) => t.id)).toEqual([]);
        }

        if (threads.length < MAX_THREADS && (threads.length === 0 || random() < NEW_THREAD_CHANCE[backend])) {
          const { thread } = await server.request('thread/start', {});
          const tracked: TrackedThread = { id: thread.id, path: thread.path, durable: [], pending: null, mustResume: false };
          threads.push(tracked);
          loaded.push(tracked);
        }
        // The random kill delays cover an acknowledged turn and a turn cut after its first
        // batch. On a machine too busy to write a process's first turn within them, the last
        // iterations make sure: one waits for a turn to complete, the next for a stalled
        // turn's first batch (each is then checked by the next iteration's resume).
        const force = coverageStillMissing(iteration, ITERATIONS[backend], tally);
        const randomTurning = loaded.filter(() => random() < 0.7);
        const turning = force === null || loaded.length === 0 ? randomTurning : [loaded[0]!];
        // Stalls queued for turns of killed processes that never reached the model would
        // otherwise answer this one.
        if (force !== null) mock.discardQueued();
        for (const thread of turning) {
          const randomStall = random() < 0.25 ? LONG_STALL_MS : Math.floor(random() * MAX_SHORT_STALL_MS);
          mock.enqueue({ kind: 'stall', ms: force === 'acknowledged' ? 0 : force === 'cut' ? LONG_STALL_MS : randomStall });
          const text = `iteration ${iteration}`;
          const { turn } = await server.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text }] });
          thread.pending = { id: turn.id, text, acknowledged: false };
        }
        const forced = force === null ? undefined : turning[0]?.pending?.id;
        if (force === 'acknowledged' && forced !== undefined) await server.waitForNotification('turn/completed', (p) => p.turn.id === forced);
        else if (force === 'cut' && forced !== undefined) await firstBatchWritten(turning[0]!.path, `iteration ${iteration}`);
        else await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * MAX_KILL_DELAY_MS)));
        await server.kill('SIGKILL');
        // Everything the process wrote to stdout before it died counts as acknowledged.
        if (!server.child.stdout.readableEnded) await once(server.child.stdout, 'end');
        expect(server.schemaProblems).toEqual([]);
        for (const thread of turning) {
          const done = server.notifications('turn/completed').some((m) => m.params.turn.id === thread.pending!.id);
          thread.pending!.acknowledged = done;
          if (done) {
            thread.mustResume = true;
            tally.acknowledged += 1;
          }
        }
      }
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
    console.log(`crash-safety (${backend}): ${ITERATIONS[backend]} kills in ${Date.now() - started} ms, ${JSON.stringify(tally)}`);
    // The run exercised what it claims to: kills mid-turn and after acknowledged turns.
    expect([tally.acknowledged > 0, tally.cutInterrupted > 0]).toEqual([true, true]);
  }, TEST_TIMEOUT_MS);
});

/**
 * What the last iterations must still bring about: an acknowledged turn (third from last) and
 * a turn cut after its first batch (second from last, its resume counted by the last); null
 * when the random kills already did, and in every other iteration.
 */
function coverageStillMissing(iteration: number, iterations: number, tally: Tally): 'acknowledged' | 'cut' | null {
  if (iteration === iterations - 3 && tally.acknowledged === 0) return 'acknowledged';
  if (iteration === iterations - 2 && tally.cutInterrupted === 0) return 'cut';
  return null;
}

/** Resolves once the rollout holds the turn's user message: its first batch is on disk. */
async function firstBatchWritten(path: string, text: string): Promise<void> {
  const deadline = Date.now() + TAKEOVER_DEADLINE_MS;
  while (!(existsSync(path) && readFileSync(path, 'utf8').includes(text))) {
    if (Date.now() > deadline) throw new Error(`the turn "${text}" never reached ${path}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Checks a resumed thread's turns against what earlier processes established. */
function checkResumed(thread: TrackedThread, turns: Message[], tally: Tally): void {
  expect(turns.slice(0, thread.durable.length)).toEqual(thread.durable);
  const rest = turns.slice(thread.durable.length).map(summary);
  const pending = thread.pending;
  if (pending === null) {
    expect(rest).toEqual([]);
  } else {
    const user = ['userMessage', pending.text];
    const agent = ['agentMessage', 'Done'];
    const completed = [{ id: pending.id, status: 'completed', items: [user, agent] }];
    if (pending.acknowledged) {
      expect(rest).toEqual(completed);
    } else {
      // Cut: nothing written yet, the turn's first batch written, or its agent line too.
      const cut = [[], [{ id: pending.id, status: 'interrupted', items: [user] }], [{ id: pending.id, status: 'interrupted', items: [user, agent] }], completed];
      expect(cut).toContainEqual(rest);
      const outcome = rest[0]?.status;
      if (outcome === 'interrupted') tally.cutInterrupted += 1;
      else if (outcome === 'completed') tally.cutCompleted += 1;
      else tally.cutAbsent += 1;
    }
  }
  thread.durable = turns;
  thread.pending = null;
  thread.mustResume = true;
}

function summary(turn: Message): Message {
  return {
    id: turn.id,
    status: turn.status,
    items: turn.items.map((item: Message) => [item.type, item.type === 'userMessage' ? item.content[0].text : item.text]),
  };
}


/**
 * thread/resume, retried while a killed host's lock directory is still fresh (lockfile only:
 * a flock dies with its process, so there the first answer stands).
 */
async function resumeTakingOver(server: TestServer, backend: WriterLockBackendKind, threadId: string, tally: Tally): Promise<Message> {
  const started = Date.now();
  for (let refusals = 0; ; refusals += 1) {
    const reply = await server.requestRaw('thread/resume', { threadId });
    const refused = 'error' in reply && reply.error.message === `thread ${threadId} already has an active writer`;
    if (!refused) {
      if (refusals > 0) tally.longestTakeoverMs = Math.max(tally.longestTakeoverMs, Date.now() - started);
      return reply;
    }
    // A flock dies with its process: only a lock directory outlives its owner.
    expect([backend, Date.now() - started < TAKEOVER_DEADLINE_MS]).toEqual(['lockfile', true]);
    await new Promise((resolve) => setTimeout(resolve, TAKEOVER_RETRY_MS));
  }
}
