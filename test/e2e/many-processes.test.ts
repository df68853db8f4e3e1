// Four host processes on one home race `thread/resume` of the same twenty threads, round after
// round, on each writer-lock backend. With flock the kernel is the referee: a sampler reads
// /proc/locks throughout and maps every held flock back to its lock file through the holder's
// fds, so "never two writers" is checked against what the kernel enforces, not only against what
// the servers answer. A lock directory names no owner, so with lockfile the referees are the
// answers (exactly one winner per thread per round) and the rollouts (every turn exactly once).
import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { WriterLockBackendKind } from '../../src/main/config/lock-backend-config.js';
import { LOCK_BACKENDS, withBackend } from '../helpers/lock-backends.js';
import { parseRollout } from '../../src/common/rollout/rollout-reader.js';
import { holdFlock } from '../../bench/lib/flock-holder.js';
import { heldFlocks } from '../../bench/lib/proc-locks.js';
import { TestServer, type Message } from '../helpers/test-server.js';

const HOSTS = 4;
const THREADS = 20;
// Each lockfile acquisition is a few mkdir/stat/utimes/rmdir calls under one coordination
// hold, far more than flock's (docs/BENCHMARKS.md, "Lock backends side by side"), so it races
// fewer rounds in the same time.
const ROUNDS: Record<WriterLockBackendKind, number> = { flock: 200, lockfile: 40 };
// Every this many rounds each winner also runs a turn, so rollouts grow from all four processes.
const TURN_EVERY_ROUNDS = 10;
const SAMPLE_INTERVAL_MS = 2;

test('the kernel view names the file a flock is held on, and marks it once the file is unlinked', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'thread-host-proc-locks-'));
  const path = join(dir, 'x.lock');
  const holder = await holdFlock(path, 'exclusive');
  try {
    expect(heldFlocks(new Set([holder.pid]), dir)).toEqual([{ pid: holder.pid, mode: 'WRITE', path, deleted: false }]);
    unlinkSync(path);
    expect(heldFlocks(new Set([holder.pid]), dir)).toEqual([{ pid: holder.pid, mode: 'WRITE', path, deleted: true }]);
  } finally {
    await holder.release();
    rmSync(dir, { recursive: true, force: true });
  }
});

describe.each(LOCK_BACKENDS)('%s backend', (backend) => {
  test(`${HOSTS} processes racing thread/resume of the same ${THREADS} threads for ${ROUNDS[backend]} rounds never hold two writers for one thread, and every rollout stays whole`, async () => {
    const home = mkdtempSync(join(tmpdir(), 'thread-host-many-'));
    const lockDir = join(home, 'thread-writer-locks');
    // The embedded model answers, so nothing but the hosts and the disk is involved.
    writeFileSync(join(home, 'config.toml'), `${withBackend(backend, 'thread_unload_delay_secs = 0')}\n`);
    const hosts: TestServer[] = [];
    try {
      const seeder = await TestServer.start({ home, keepConfig: true });
      const threads: Array<{ id: string; path: string; turnIds: string[] }> = [];
      for (let i = 0; i < THREADS; i += 1) {
        const { thread } = await seeder.request('thread/start', {});
        threads.push({ id: thread.id, path: thread.path, turnIds: [await runTurn(seeder, thread.id, `seed ${i}`)] });
      }
      expect(await seeder.close()).toBe(0);

      for (let i = 0; i < HOSTS; i += 1) hosts.push(await TestServer.start({ home, keepConfig: true }));
      const pids = new Set(hosts.map((host) => host.child.pid!));
      const violations: string[] = [];
      const seenHeld = new Set<string>();
      let samples = 0;
      const sampler = setInterval(() => {
        if (backend !== 'flock') return;
        samples += 1;
        const writers = new Map<string, number[]>();
        for (const lock of heldFlocks(pids, lockDir)) {
          const name = basename(lock.path);
          if (name === '.coordination.lock') continue;
          if (lock.deleted) violations.push(`pid ${lock.pid} holds the unlinked lock file ${name}`);
          writers.set(name, [...(writers.get(name) ?? []), lock.pid]);
          seenHeld.add(name);
        }
        for (const [name, holders] of writers) if (holders.length > 1) violations.push(`${name} held by ${holders.join(', ')}`);
      }, SAMPLE_INTERVAL_MS);

      const started = Date.now();
      try {
        for (let round = 0; round < ROUNDS[backend]; round += 1) {
          const attempts = hosts.flatMap((host) => threads.map((thread) => ({ host, thread })));
          const replies = await Promise.all(attempts.map(({ host, thread }) => host.requestRaw('thread/resume', { threadId: thread.id, excludeTurns: true })));
          const winners: Array<{ host: TestServer; thread: (typeof threads)[number] }> = [];
          replies.forEach((reply, index) => {
            const attempt = attempts[index]!;
            if ('result' in reply) winners.push(attempt);
            else expect(reply.error).toEqual({ code: -32600, message: `thread ${attempt.thread.id} already has an active writer` });
          });
          // Exactly one process won each thread this round.
          expect(winners.map((w) => w.thread.id).sort()).toEqual(threads.map((t) => t.id).sort());
          if (round % TURN_EVERY_ROUNDS === 0) {
            await Promise.all(winners.map(async ({ host, thread }) => thread.turnIds.push(await runTurn(host, thread.id, `round ${round}`))));
          }
          // Release: unsubscribing the only subscriber unloads at once (delay 0).
          await Promise.all(
            winners.map(async ({ host, thread }) => {
              expect(await host.request('thread/unsubscribe', { threadId: thread.id })).toEqual({ status: 'unsubscribed' });
              await host.waitForNotification('thread/closed', (p) => p.threadId === thread.id);
            }),
          );
        }
      } finally {
        clearInterval(sampler);
      }
      console.log(`many-processes (${backend}): ${ROUNDS[backend]} rounds in ${Date.now() - started} ms, ${samples} /proc/locks samples`);
      expect(violations).toEqual([]);
      // The sampler did see the writers: every thread's lock was caught held at least once.
      if (backend === 'flock') expect([...seenHeld].sort()).toEqual(threads.map((t) => `${t.id}.lock`).sort());

      for (const host of hosts.splice(0)) expect(await host.close()).toBe(0);
      for (const thread of threads) {
        const text = readFileSync(thread.path, 'utf8');
        // Every line is whole JSON, and the reader rebuilds exactly the turns that were run.
        const lines = text.split('\n');
        expect(lines.pop()).toBe('');
        for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
        const parsed = parseRollout(text);
        expect([parsed.skippedLines, parsed.turns.map((turn) => [turn.id, turn.status])]).toEqual([0, thread.turnIds.map((id) => [id, 'completed'])]);
      }
    } finally {
      await Promise.all(hosts.map((host) => host.kill()));
      rmSync(home, { recursive: true, force: true });
    }
  }, 120_000);
});

/** Runs one turn to completion and returns its id. */
async function runTurn(server: TestServer, threadId: string, text: string): Promise<string> {
  const { turn } = await server.request('turn/start', { threadId, input: [{ type: 'text', text }] });
  const completed: Message = await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id);
  expect(completed.turn.status).toBe('completed');
  return turn.id;
}
