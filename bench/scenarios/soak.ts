// `soak`: the churn cycle (start → turn → unsubscribe → closed → resume → unsubscribe → closed,
// unload delay 0) for `--soak-s` (default 600 s) with `--churn-clients` clients, sampling the
// server every `--soak-sample-s` (default 10 s): RSS, open fds, event-loop delay, cycles done.
// The issue asks for all three to be flat after warm-up; the verdict (lib/soak-series.ts)
// compares the last third of the samples with the middle third, and the case fails if they grew.
// Too long for `all`: it runs only when named.
//
// Where the figures come from: thread-host logs a `stats` line (src/main/stats-reporter.ts)
// every THREAD_HOST_STATS_INTERVAL_MS when THREAD_HOST_LOG=info. The bench client keeps the
// server's stderr to itself, so the server is started through `bash -c 'exec "$@" 2> >(tee …)'`:
// exec keeps the pid the server's own (the one /proc, kill and the exit code refer to), tee keeps
// the client's stderr tail, and a grep writes the stats lines to a file in the home. One sample
// per stats line, so each carries exactly one interval of event-loop delay. A server that
// writes no stats lines (the reference) is read from /proc/<pid> on the bench's own timer
// instead, with event-loop delay null.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import type { AppServerClient } from '../lib/app-server-client.js';
import { rssKb } from '../lib/proc-rss.js';
import type { ServerCommand } from '../lib/server-command.js';
import { UNLOAD_NOW } from '../lib/server-home.js';
import { sampleFromStatsLine, soakMarkdown, soakVerdict, type SoakSample } from '../lib/soak-series.js';
import { firstLine, SINGLE_CASE, textInput, withServer, type Scenario } from './scenario.js';

const STEP_DEADLINE_MS = 30_000;
/** How often the stats file is read; a sample's time is its arrival, so this is its precision. */
const POLL_MS = 250;
/** After a failed cycle: a dead or refusing server must not turn the clients into a busy loop. */
const ERROR_PAUSE_MS = 100;
/** Relative to the server's cwd, which is its home: removed with it. */
const STATS_FILE = 'soak-stats.jsonl';

/** The server, with its stats lines copied to STATS_FILE and the rest of stderr passed through. */
function withStatsLog(server: ServerCommand, intervalMs: number): ServerCommand {
  const script = `exec "$@" 2> >(tee >(grep --line-buffered -F '"msg":"stats"' > ${STATS_FILE}) >&2)`;
  return {
    ...server,
    argv: ['bash', '-c', script, 'bash', ...server.argv],
    env: { ...server.env, THREAD_HOST_LOG: 'info', THREAD_HOST_STATS_INTERVAL_MS: String(intervalMs) },
  };
}

/** churn.ts's cycle (it keeps its own private, with latency histograms this one does not need). */
async function cycle(client: AppServerClient, n: number, counts: { cycles: number; errors: Map<string, number>; texts: Set<string> }): Promise<void> {
  let step = 'thread/start';
  let threadId = '';
  try {
    const { thread } = await client.request('thread/start', {}, STEP_DEADLINE_MS);
    threadId = thread.id as string;
    step = 'turn';
    const completed = client.waitFor('turn/completed', threadId, STEP_DEADLINE_MS);
    await client.request('turn/start', { threadId, input: textInput(`soak ${n}`) }, STEP_DEADLINE_MS);
    await completed;
    const close = async (): Promise<void> => {
      step = 'unsubscribe→closed';
      const closed = client.waitFor('thread/closed', threadId, STEP_DEADLINE_MS);
      await client.request('thread/unsubscribe', { threadId }, STEP_DEADLINE_MS);
      await closed;
    };
    await close();
    step = 'thread/resume';
    await client.request('thread/resume', { threadId }, STEP_DEADLINE_MS);
    await close();
    counts.cycles += 1;
  } catch (error) {
    counts.errors.set(step, (counts.errors.get(step) ?? 0) + 1);
    if (counts.texts.size < 10) counts.texts.add(`${step}: ${firstLine(error)}`);
    await delay(ERROR_PAUSE_MS);
  }
}

function procSample(pid: number, t: number, cycles: number): SoakSample {
  const kb = rssKb(pid);
  let fds: number | null = null;
  try {
    fds = readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    // gone, or not Linux
  }
  const rssMB = Number.isFinite(kb) ? kb / 1024 : null;
  return { t, rssMB, fds, eventLoopP99Ms: null, eventLoopMaxMs: null, cycles, loadedThreads: null, liveWorkers: null, source: 'proc' };
}

export const soak: Scenario = {
  name: 'soak',
  summary: 'the churn cycle for --soak-s (600 s); RSS, open fds and event-loop delay every --soak-sample-s (10 s), flat after warm-up?',
  cases: () => SINGLE_CASE,
  async run(ctx) {
    const { rec, params } = ctx;
    const sampleMs = params.soakSampleS * 1000;
    const server = withStatsLog(ctx.server, sampleMs);
    await withServer({ ...ctx, server }, { rootConfig: UNLOAD_NOW }, async (client, home) => {
      const pid = client.pid!;
      const counts = { cycles: 0, errors: new Map<string, number>(), texts: new Set<string>() };
      const samples: SoakSample[] = [];
      const startedAt = performance.now();
      const endAt = startedAt + params.soakSeconds * 1000;
      let linesRead = 0;
      let nextProcAt = startedAt + sampleMs;
      let serverGone = false;
      const poll = (): void => {
        const now = performance.now();
        const t = (now - startedAt) / 1000;
        ctx.progress(t / params.soakSeconds);
        let lines: string[] = [];
        try {
          const text = readFileSync(join(home, STATS_FILE), 'utf8');
          lines = text.slice(0, text.lastIndexOf('\n') + 1).split('\n').slice(0, -1); // whole lines only
        } catch {
          // not written yet (or never: a server without stats lines)
        }
        for (const line of lines.slice(linesRead)) {
          const sample = sampleFromStatsLine(line, t, counts.cycles);
          if (sample) samples.push(sample);
        }
        linesRead = Math.max(linesRead, lines.length);
        if (linesRead === 0 && now >= nextProcAt) {
          samples.push(procSample(pid, t, counts.cycles));
          nextProcAt += sampleMs;
        }
        // A server that died would otherwise leave the clients failing for the rest of the soak.
        if (existsSync('/proc/self') && !existsSync(`/proc/${pid}`)) serverGone = true;
      };
      const poller = setInterval(poll, POLL_MS);
      let n = 0;
      const worker = async (): Promise<void> => {
        while (performance.now() < endAt && !serverGone) await cycle(client, n++, counts);
      };
      try {
        await Promise.all(Array.from({ length: params.churnClients }, worker));
        poll(); // a stats line that arrived since the last poll
      } finally {
        clearInterval(poller);
      }
      const elapsedS = (performance.now() - startedAt) / 1000;
      const verdict = soakVerdict(samples);
      const markdown = soakMarkdown(samples, verdict);
      // The summary table holds one row per figure, not a series: the series goes to the JSON
      // (raw.series) and, as a table, to stderr where the person running the soak sees it.
      process.stderr.write(`\nsoak, ${ctx.server.name}, ${elapsedS.toFixed(0)} s:\n\n${markdown}\n`);
      rec.raw('series', samples);
      rec.raw('verdict', verdict);
      rec.raw('errorsByStep', Object.fromEntries(counts.errors));
      rec.raw('seriesMarkdown', markdown);
      rec.figure('cycles', counts.cycles, 'count', 'none');
      rec.figure('cycles per s', counts.cycles / elapsedS, 'per s', 'higher');
      rec.figure('errors', [...counts.errors.values()].reduce((a, b) => a + b, 0), 'count');
      rec.figure('samples', samples.length, 'count', 'none');
      if (verdict.rss) {
        rec.figure('RSS last third mean', verdict.rss.lastMean * 1024, 'kB');
        rec.figure('RSS growth, last − middle third', (verdict.rss.lastMean - verdict.rss.middleMean) * 1024, 'kB');
      }
      if (verdict.fds) {
        rec.figure('open fds last third mean', verdict.fds.lastMean, 'count');
        rec.figure('open fds growth, last − middle third', verdict.fds.lastMean - verdict.fds.middleMean, 'count');
      }
      if (verdict.eventLoopP99) rec.figure('event-loop delay p99, last third mean', verdict.eventLoopP99.lastMean, 'ms');
      if (verdict.eventLoopMaxAfterWarmupMs !== null) rec.figure('event-loop delay max after warm-up', verdict.eventLoopMaxAfterWarmupMs, 'ms');
      for (const text of counts.texts) rec.fail(text);
      rec.check(!serverGone, 'the server exited during the soak');
      rec.check(counts.cycles > 0, 'no cycle completed');
      rec.check(verdict.thirdSamples > 0, `${samples.length} samples: too few to judge (need 3; lengthen --soak-s or shorten --soak-sample-s)`);
      for (const [name, f] of [['RSS', verdict.rss], ['open fds', verdict.fds], ['event-loop delay p99', verdict.eventLoopP99]] as const) {
        if (f && !f.flat) rec.fail(`${name} grew after warm-up: middle third ${f.middleMean.toFixed(2)}, last third ${f.lastMean.toFixed(2)} (×${f.ratio.toFixed(3)})`);
      }
    });
  },
};
