// How a server behaves while another process holds `<home>/thread-writer-locks/.coordination.lock`
// exclusively (writer-locks-unload-history.md §1–§2): idle unload must finish, resumes must
// wait for the lock, and the server must keep answering meanwhile.
//   K=1,8,32: K threads with one completed turn; unsubscribe all → all thread/closed (ms);
//     a real separate process takes the flock; K thread/resume sent at once; thread/loaded/list
//     sent open-loop every 15 ms for a 2 s hold (answer latency histogram, longest gap between
//     answers); release → all resumed (ms); writer-lock files left at each stage.
//   seed: the reference test idle_unload_finishes_while_writer_coordination_is_locked: one
//     thread with a turn, flock taken, unsubscribe → thread/closed (ms) under the lock,
//     loaded/list empty, release, resume returns 1 turn → pass/fail.
//   node dist/bench/resume-under-lock.js [--server-cmd CMD] [--compare CMD] [--runs N]
//        [--k 1,8,32] [--hold-ms 2000] [--interval-ms 15]
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startMockModel, type MockModel } from '../src/main/mock-model/mock-model-server.js';
import { AppServerClient } from './lib/app-server-client.js';
import { parseBenchOptions, positiveInt } from './lib/bench-options.js';
import { runBench } from './lib/bench-run.js';
import { holdFlock } from './lib/flock-holder.js';
import { LatencyHistogram, roundMs } from './lib/histogram.js';
import { Report } from './lib/report.js';
import type { ServerCommand } from './lib/server-command.js';
import { createHome, removeHome } from './lib/server-home.js';

const options = parseBenchOptions(
  process.argv.slice(2),
  { k: { type: 'string' }, 'hold-ms': { type: 'string' }, 'interval-ms': { type: 'string' } },
  /*default deadline s*/ 900,
);
const K_VALUES = String(options.values.k ?? '1,8,32').split(',').map((k) => positiveInt(k, 'k', 1));
const HOLD_MS = positiveInt(options.values['hold-ms'], 'hold-ms', 2_000);
const INTERVAL_MS = positiveInt(options.values['interval-ms'], 'interval-ms', 15);
/** The reference waits up to 30 s for coordination; a resume slower than this is stuck. */
const RESUME_DEADLINE_MS = 60_000;
/** Unload under a held lock must not wait for it; the reference test allows 60 s. */
const CLOSED_DEADLINE_MS = 60_000;
const LIST_DEADLINE_MS = 60_000;
const UNLOAD_NOW = 'thread_unload_delay_secs = 0';
const report = new Report();

const coordinationPath = (home: string) => join(home, 'thread-writer-locks', '.coordination.lock');

/** Per-thread lock files on disk; `.coordination.lock` is never deleted and is not counted. */
function lockFiles(home: string): number {
  try {
    return readdirSync(join(home, 'thread-writer-locks')).filter((name) => name.endsWith('.lock') && !name.startsWith('.')).length;
  } catch {
    return 0;
  }
}

async function threadWithOneTurn(client: AppServerClient, text: string): Promise<string> {
  const { thread } = await client.request('thread/start', {});
  const completed = client.waitForNotification('turn/completed', (p) => p.threadId === thread.id);
  await client.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text, text_elements: [] }] });
  await completed;
  return thread.id as string;
}

/** Answers to the open-loop thread/loaded/list requests; null for an error or a missed deadline. */
interface OpenLoop {
  /** Resolves when the last request of the hold has been sent. */
  sendingDone: Promise<void>;
  /** Resolves once every request sent has been answered (or failed). */
  answers(): Promise<Array<{ latencyMs: number; at: number } | null>>;
}

/** Sends thread/loaded/list every INTERVAL_MS until `until`, without waiting for answers. */
function openLoopLists(client: AppServerClient, until: number): OpenLoop {
  const pending: Array<Promise<{ latencyMs: number; at: number } | null>> = [];
  const sendingDone = new Promise<void>((resolve) => {
    const tick = (): void => {
      const sentAt = performance.now();
      if (sentAt >= until) {
        clearInterval(timer);
        resolve();
        return;
      }
      pending.push(
        client.requestTimed('thread/loaded/list', {}, LIST_DEADLINE_MS).then(
          ({ at }) => ({ latencyMs: at - sentAt, at }),
          () => null,
        ),
      );
    };
    // Open loop: the next request goes out on schedule whether or not the last was answered,
    // so a server that stalls shows the stall instead of the client slowing down with it.
    const timer = setInterval(tick, INTERVAL_MS);
    tick();
  });
  return { sendingDone, answers: () => Promise.all(pending) };
}

/** The longest stretch without an answer, from the first request through the last answer. */
function longestGap(start: number, answerTimes: number[]): number {
  const times = [start, ...answerTimes].sort((a, b) => a - b);
  let gap = 0;
  for (let i = 1; i < times.length; i += 1) gap = Math.max(gap, times[i]! - times[i - 1]!);
  return gap;
}

async function underLock(mock: MockModel, server: ServerCommand, k: number, run: number): Promise<void> {
  const home = createHome(mock.url, UNLOAD_NOW);
  const client = await AppServerClient.start(server, home).catch((error: unknown) => {
    removeHome(home);
    throw error;
  });
  try {
    const ids = await Promise.all(Array.from({ length: k }, (_, i) => threadWithOneTurn(client, `thread ${i}`)));
    const closed = ids.map((threadId) => client.waitForNotification('thread/closed', (p) => p.threadId === threadId, CLOSED_DEADLINE_MS));
    const unsubscribedAt = performance.now();
    await Promise.all(ids.map((threadId) => client.request('thread/unsubscribe', { threadId })));
    const closeMs = Math.max(...(await Promise.all(closed)).map((c) => c.at)) - unsubscribedAt;
    const lockFilesAfterClose = lockFiles(home);

    mkdirSync(join(home, 'thread-writer-locks'), { recursive: true });
    const holder = await holdFlock(coordinationPath(home), 'exclusive');
    let releaseAt = Number.POSITIVE_INFINITY;
    let holdStart = 0;
    let lists: OpenLoop;
    let resumes: Array<Promise<{ ok: boolean; at: number; error: string | null }>>;
    try {
      resumes = ids.map((threadId) =>
        client.requestTimed('thread/resume', { threadId }, RESUME_DEADLINE_MS).then(
          ({ result, at }) => ({ ok: result.thread?.turns?.length === 1, at, error: null as string | null }),
          (error: unknown) => ({ ok: false, at: performance.now(), error: String(error).split('\n')[0]!.slice(0, 200) }),
        ),
      );
      holdStart = performance.now();
      lists = openLoopLists(client, holdStart + HOLD_MS);
      await lists.sendingDone;
    } finally {
      releaseAt = performance.now();
      await holder.release();
    }
    const resumed = await Promise.all(resumes);
    const listAnswers = await lists.answers();
    const latency = new LatencyHistogram();
    const answerTimes: number[] = [];
    for (const answer of listAnswers) {
      if (answer === null) continue;
      latency.recordMs(answer.latencyMs);
      answerTimes.push(answer.at);
    }
    const lockFilesAfterResume = lockFiles(home);
    const exitCode = (await client.close()).code;
    const line = {
      scenario: 'resume-under-lock',
      server: server.name,
      run,
      k,
      unit: 'ms',
      unsubscribeToAllClosedMs: roundMs(closeMs),
      list: latency.summary(),
      listSent: listAnswers.length,
      listAnsweredDuringHold: listAnswers.filter((a) => a !== null && a.at < releaseAt).length,
      listFailed: listAnswers.filter((a) => a === null).length,
      longestGapMs: roundMs(longestGap(holdStart, answerTimes)),
      resumedDuringHold: resumed.filter((r) => r.at < releaseAt).length,
      releaseToAllResumedMs: roundMs(Math.max(...resumed.map((r) => r.at)) - releaseAt),
      resumedOk: resumed.filter((r) => r.ok).length,
      resumeErrors: [...new Set(resumed.flatMap((r) => (r.error === null ? [] : [r.error])))],
      lockFilesAfterClose,
      lockFilesAfterResume,
      lockFilesAfterExit: lockFiles(home),
      exitCode,
    };
    report.line(line);
    const row = `resume-under-lock K=${k}`;
    report.figure(row, 'unsubscribe→closed', server.name, line.unsubscribeToAllClosedMs);
    report.figure(row, 'list p50', server.name, line.list.p50);
    report.figure(row, 'list p99', server.name, line.list.p99);
    report.figure(row, 'list max', server.name, line.list.max);
    report.figure(row, 'longest gap', server.name, line.longestGapMs);
    report.figure(row, 'release→resumed', server.name, line.releaseToAllResumedMs);
    report.figure(row, 'resumed ok', server.name, line.resumedOk);
  } finally {
    await client.close();
    removeHome(home);
  }
}

/** The reference test, step for step, timed; pass means every assertion of that test held. */
async function seed(mock: MockModel, server: ServerCommand, run: number): Promise<void> {
  const home = createHome(mock.url, `${UNLOAD_NOW}\napprovals_reviewer = "user"`);
  // As the reference test: two runtime workers, so one parked lock wait cannot hide behind spare cores.
  const client = await AppServerClient.start({ ...server, env: { ...server.env, TOKIO_WORKER_THREADS: '2' } }, home).catch(
    (error: unknown) => {
      removeHome(home);
      throw error;
    },
  );
  const failures: string[] = [];
  try {
    const threadId = await threadWithOneTurn(client, 'hello');
    const holder = await holdFlock(coordinationPath(home), 'exclusive');
    let closedMs = Number.NaN;
    try {
      const closed = client.waitForNotification('thread/closed', (p) => p.threadId === threadId, CLOSED_DEADLINE_MS);
      const sentAt = performance.now();
      const { status } = await client.request('thread/unsubscribe', { threadId });
      if (status !== 'unsubscribed') failures.push(`unsubscribe: ${status}`);
      closedMs = (await closed).at - sentAt;
      const loaded = await client.request('thread/loaded/list', {});
      if (JSON.stringify(loaded) !== JSON.stringify({ data: [], nextCursor: null })) failures.push(`loaded/list: ${JSON.stringify(loaded)}`);
    } catch (error) {
      failures.push(String(error).split('\n')[0]!);
    } finally {
      await holder.release();
    }
    const resumed = await client.request('thread/resume', { threadId }, RESUME_DEADLINE_MS).catch((e: unknown) => {
      failures.push(`resume: ${String(e).split('\n')[0]}`);
      return null;
    });
    if (resumed !== null && (resumed.thread.id !== threadId || resumed.thread.turns.length !== 1)) failures.push('resume: wrong thread or turns');
    const { code } = await client.close();
    if (code !== 0) failures.push(`exit code ${code}`);
    report.line({ scenario: 'seed', server: server.name, run, unit: 'ms', unsubscribeToClosedMs: roundMs(closedMs), pass: failures.length === 0, failures });
    report.figure('seed', 'unsubscribe→closed', server.name, roundMs(closedMs));
    report.figure('seed', 'pass', server.name, failures.length === 0 ? 1 : 0);
  } finally {
    await client.close();
    removeHome(home);
  }
}

runBench('resume-under-lock', options.deadlineMs, async () => {
  const mock = await startMockModel({ reply: 'Done' });
  try {
    for (let run = 1; run <= options.runs; run += 1) {
      for (const k of K_VALUES) {
        for (const server of options.servers) await underLock(mock, server, k, run);
      }
      for (const server of options.servers) await seed(mock, server, run);
    }
  } finally {
    await mock.close();
  }
  if (options.servers.length === 2) report.printComparison(options.servers[0]!.name, options.servers[1]!.name);
});
