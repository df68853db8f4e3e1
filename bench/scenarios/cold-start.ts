// `cold-start`: spawn → initialize response, `coldRepeats` times per run, in a fresh home (first
// start ever: the server creates its files) and in a reused one (primed once by a server that
// ran a thread and a turn). Also stdin EOF → exit, the other half of a process's life cost.
// Each start is paired with a bare `node -e` start just before it, so the ratio to the floor
// compares two processes that ran under the same load.
import { performance } from 'node:perf_hooks';
import { AppServerClient } from '../lib/app-server-client.js';
import { bareNodeStartMs } from '../lib/bare-node.js';
import { LatencyHistogram } from '../lib/histogram.js';
import { createHome, removeHome } from '../lib/server-home.js';
import { textInput, threadWithOneTurn, type CaseContext, type Scenario } from './scenario.js';

/** One start and stop; resolves with spawn→initialize and EOF→exit in ms. */
async function startStop(ctx: CaseContext, home: string): Promise<{ initializeMs: number; exitMs: number; code: number | null }> {
  const client = await AppServerClient.start(ctx.server, home);
  ctx.rec.userAgent(client.userAgent);
  const eofAt = performance.now();
  const { code } = await client.close();
  return { initializeMs: client.initializeMs, exitMs: performance.now() - eofAt, code };
}

/**
 * The first work a new process does: initialize → the reply to a `thread/start` sent right
 * after it, then that reply → the reply to a turn on the thread and its `turn/completed`
 * (the host's workers may still be coming up for all three).
 */
async function firstThreadStart(ctx: CaseContext): Promise<void> {
  const { rec, params } = ctx;
  const firstStart = new LatencyHistogram();
  const firstTurnReply = new LatencyHistogram();
  const firstTurnCompleted = new LatencyHistogram();
  for (let r = 0; r < params.coldRepeats; r += 1) {
    const home = createHome(ctx.mock.url);
    try {
      const client = await AppServerClient.start(ctx.server, home);
      try {
        const sentAt = performance.now();
        const { result, at } = await client.requestTimed('thread/start', {});
        rec.check(typeof result.thread?.id === 'string', `thread/start: ${JSON.stringify(result).slice(0, 200)}`);
        firstStart.recordMs(at - sentAt);
        const threadId = result.thread.id as string;
        const completed = client.waitFor('turn/completed', threadId);
        const turnSentAt = performance.now();
        const turn = await client.requestTimed('turn/start', { threadId, input: textInput('first') });
        firstTurnReply.recordMs(turn.at - turnSentAt);
        firstTurnCompleted.recordMs((await completed).at - turnSentAt);
      } finally {
        await client.close();
      }
    } finally {
      removeHome(home);
    }
    ctx.progress((r + 1) / params.coldRepeats);
  }
  rec.latency('initialize→first thread/start reply', firstStart);
  rec.latency('→ first turn/start reply', firstTurnReply);
  rec.latency('→ its turn/completed', firstTurnCompleted);
}

export const coldStart: Scenario = {
  name: 'cold-start',
  summary: 'spawn → initialize response, fresh and reused home; stdin EOF → exit; the first thread/start after initialize',
  cases: () => [
    { id: 'fresh', k: 0 },
    { id: 'reused', k: 1 },
    { id: 'first thread/start', k: 2 },
  ],
  async run(ctx, { id }) {
    if (id === 'first thread/start') return firstThreadStart(ctx);
    const { rec, params } = ctx;
    const initialize = new LatencyHistogram();
    const exit = new LatencyHistogram();
    const bare = new LatencyHistogram();
    const raw: number[] = [];
    const bareRaw: number[] = [];
    const reused = id === 'reused' ? createHome(ctx.mock.url) : null;
    try {
      if (reused !== null) {
        const primer = await AppServerClient.start(ctx.server, reused);
        await threadWithOneTurn(primer, 'prime').finally(() => primer.close());
      }
      for (let r = 0; r < params.coldRepeats; r += 1) {
        const home = reused ?? createHome(ctx.mock.url);
        try {
          const bareMs = await bareNodeStartMs(home);
          bare.recordMs(bareMs);
          bareRaw.push(bareMs);
          const { initializeMs, exitMs, code } = await startStop(ctx, home);
          initialize.recordMs(initializeMs);
          exit.recordMs(exitMs);
          raw.push(initializeMs);
          rec.check(code === 0, `exit code ${code} after stdin EOF`);
        } finally {
          if (reused === null) removeHome(home);
        }
        ctx.progress((r + 1) / params.coldRepeats);
      }
    } finally {
      if (reused !== null) removeHome(reused);
    }
    rec.latency('spawn→initialize', initialize);
    rec.latency('stdin EOF→exit', exit);
    rec.latency('bare node spawn→first line', bare);
    rec.figure('spawn→initialize ÷ bare node (p50)', initialize.summary().p50 / bare.summary().p50, 'count');
    rec.raw('initializeMs', raw);
    rec.raw('bareNodeMs', bareRaw);
  },
};
