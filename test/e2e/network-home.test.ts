// The network-home testbed (issue 11): one home mounted twice with bindfs, one host per mount,
// as two machines share an NFS home. Round after round both hosts race thread/resume of the same
// threads; each winner runs a turn and unsubscribes (so it unloads at once). Afterwards every
// rollout is read from the real directory and every acknowledged turn is counted.
//   - lockfile: never two winners for a thread, and every acknowledged turn is in the history
//     exactly once;
//   - flock: both hosts win the same thread (the locks cannot see each other through two
//     mounts), which proves the testbed models the hazard the lockfile backend exists for.
// Skips, saying why, where FUSE mounts are impossible (no bindfs, no /dev/fuse, no privilege).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { WriterLockBackendKind } from '../../src/main/config/lock-backend-config.js';
import { parseRollout } from '../../src/shared/history/rollout-reader.js';
import { fuseUnavailableReason, mountTwice, type TwoMounts } from '../helpers/bindfs-mounts.js';
import { withBackend } from '../helpers/lock-backends.js';
import { TestServer, type Message } from '../helpers/test-server.js';

const THREADS = 3;
const ROUNDS: Record<WriterLockBackendKind, number> = { lockfile: 8, flock: 4 };
const TEST_TIMEOUT_MS = 90_000;

const unavailable = fuseUnavailableReason();
if (unavailable !== null) console.warn(`network-home testbed SKIPPED: ${unavailable}`);

let mounts: TwoMounts;
beforeAll(() => {
  if (unavailable === null) mounts = mountTwice();
});
afterAll(() => mounts?.unmount());

interface Tracked {
  id: string;
  /** The rollout's path under the real directory. */
  path: string;
  acknowledged: string[];
}

/** What one backend's run saw. */
interface RunResult {
  threads: Tracked[];
  /** Rounds in which both hosts won the same thread. */
  doubleWins: number;
  /** Rounds in which a thread had exactly one winner. */
  singleWins: number;
}

async function race(backend: WriterLockBackendKind): Promise<RunResult> {
  // Each backend gets its own home inside the mounted directory (a home records one backend).
  const sub = `home-${backend}`;
  const config = withBackend(backend, 'thread_unload_delay_secs = 0');
  const { mkdirSync, writeFileSync } = await import('node:fs');
  mkdirSync(`${mounts.source}/${sub}`);
  writeFileSync(`${mounts.source}/${sub}/config.toml`, `${config}\n`);
  const hostA = await TestServer.start({ home: `${mounts.a}/${sub}`, keepConfig: true });
  const hostB = await TestServer.start({ home: `${mounts.b}/${sub}`, keepConfig: true });
  const hosts = [hostA, hostB];
  const result: RunResult = { threads: [], doubleWins: 0, singleWins: 0 };
  try {
    for (let i = 0; i < THREADS; i += 1) {
      const { thread } = await hostA.request('thread/start', {});
      const turnId = await runTurn(hostA, thread.id, `seed ${i}`);
      await unsubscribe(hostA, thread.id);
      result.threads.push({ id: thread.id, path: thread.path.replace(mounts.a, mounts.source), acknowledged: [turnId] });
    }
    for (let round = 0; round < ROUNDS[backend]; round += 1) {
      await Promise.all(
        result.threads.map(async (thread) => {
          const replies = await Promise.all(hosts.map((host) => host.requestRaw('thread/resume', { threadId: thread.id, excludeTurns: true })));
          const winners = hosts.filter((_, index) => 'result' in replies[index]!);
          for (const reply of replies) {
            if ('error' in reply) expect(reply.error).toEqual({ code: -32600, message: `thread ${thread.id} already has an active writer` });
          }
          if (winners.length === 2) result.doubleWins += 1;
          if (winners.length === 1) result.singleWins += 1;
          const turns = await Promise.all(winners.map((host, index) => runTurn(host, thread.id, `round ${round} host ${index}`)));
          thread.acknowledged.push(...turns);
          await Promise.all(winners.map((host) => unsubscribe(host, thread.id)));
        }),
      );
    }
    for (const host of hosts) expect(await host.close()).toBe(0);
  } finally {
    await Promise.all(hosts.map((host) => host.kill()));
  }
  return result;
}

/** Each acknowledged turn, by how many times the history holds it, for every thread. */
function historyCounts(threads: Tracked[]): { missing: number; duplicated: number; unknown: number; acknowledged: number } {
  const tally = { missing: 0, duplicated: 0, unknown: 0, acknowledged: 0 };
  for (const thread of threads) {
    const ids = parseRollout(readFileSync(thread.path, 'utf8')).turns.map((turn) => turn.id);
    tally.acknowledged += thread.acknowledged.length;
    for (const id of thread.acknowledged) {
      const times = ids.filter((other) => other === id).length;
      if (times === 0) tally.missing += 1;
      if (times > 1) tally.duplicated += 1;
    }
    tally.unknown += ids.filter((id) => !thread.acknowledged.includes(id)).length;
  }
  return tally;
}

async function runTurn(server: TestServer, threadId: string, text: string): Promise<string> {
  const { turn } = await server.request('turn/start', { threadId, input: [{ type: 'text', text }] });
  const completed: Message = await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id);
  expect(completed.turn.status).toBe('completed');
  return turn.id;
}

async function unsubscribe(server: TestServer, threadId: string): Promise<void> {
  expect(await server.request('thread/unsubscribe', { threadId })).toEqual({ status: 'unsubscribed' });
  await server.waitForNotification('thread/closed', (p) => p.threadId === threadId);
}

describe.skipIf(unavailable !== null)('two hosts on two bindfs mounts of one home', () => {
  test('lockfile: never two writers, and every acknowledged turn is in the history exactly once', async () => {
    const started = Date.now();
    const run = await race('lockfile');
    const counts = historyCounts(run.threads);
    console.log(`network-home (lockfile): ${JSON.stringify({ ...counts, doubleWins: run.doubleWins, singleWins: run.singleWins, ms: Date.now() - started })}`);
    expect([run.doubleWins, counts.missing, counts.duplicated, counts.unknown]).toEqual([0, 0, 0, 0]);
    // The race was real: threads changed hands between the two hosts and turns were run.
    expect(run.singleWins).toBeGreaterThanOrEqual(THREADS * ROUNDS.lockfile - THREADS);
  }, TEST_TIMEOUT_MS);

  test('flock: both hosts become writers of one thread, the split brain the lockfile backend prevents', async () => {
    const started = Date.now();
    const run = await race('flock');
    const counts = historyCounts(run.threads);
    console.log(`network-home (flock): ${JSON.stringify({ ...counts, doubleWins: run.doubleWins, singleWins: run.singleWins, ms: Date.now() - started })}`);
    expect(run.doubleWins).toBe(THREADS * ROUNDS.flock);
  }, TEST_TIMEOUT_MS);
});
