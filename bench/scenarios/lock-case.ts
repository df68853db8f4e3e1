// What the three lock scenarios share: a fresh server with unload delay 0, K threads with one
// completed turn each, a LockWindow that is always released, the count of lock files left
// after the server exits, and the figures of a batch of requests that waited for the lock.
import type { AppServerClient } from '../lib/app-server-client.js';
import type { CaseRecorder } from '../lib/case-result.js';
import { LockWindow, lockFiles } from '../lib/lock-window.js';
import { UNLOAD_NOW } from '../lib/server-home.js';
import type { WriterLockBackendKind } from '../../src/main/config/lock-backend-config.js';
import { errorsOf, threadWithOneTurn, withServer, type CaseContext, type Outcome } from './scenario.js';

/**
 * The reference waits up to 30 s for the coordination lock and its test allows 60 s for a
 * close, so a request still unanswered after this is stuck rather than slow.
 */
export const LOCK_STEP_DEADLINE_MS = 60_000;

/** What a lock scenario's body works with. */
export interface LockCase {
  client: AppServerClient;
  home: string;
  /** Threads with one completed turn each, still loaded and subscribed. */
  ids: string[];
  window: LockWindow;
}

/** config.toml lines selecting the lockfile backend; its default timing, as users get it. */
export const LOCKFILE_CONFIG = 'writer_lock_backend = "lockfile"';

export async function withLockCase(
  ctx: CaseContext,
  threads: number,
  backend: WriterLockBackendKind,
  body: (lockCase: LockCase) => Promise<void>,
): Promise<void> {
  const { rec, params } = ctx;
  const afterExit = (home: string) => rec.figure('lock files after exit', lockFiles(home), 'count');
  const rootConfig = backend === 'flock' ? UNLOAD_NOW : `${UNLOAD_NOW}\n${LOCKFILE_CONFIG}`;
  await withServer(ctx, { rootConfig, afterExit }, async (client, home) => {
    const ids = await Promise.all(Array.from({ length: threads }, (_, i) => threadWithOneTurn(client, `thread ${i}`)));
    ctx.progress(0.2);
    const window = new LockWindow(client, home, backend, params.holdMs, params.intervalMs);
    try {
      await body({ client, home, ids, window });
    } finally {
      await window.dispose();
    }
  });
}

/** Figures for K requests that needed the lock: release → last answer, how many answered early, how many succeeded. */
export function recordBatch(rec: CaseRecorder, releaseAt: number, verb: 'resumed' | 'started', outcomes: readonly Outcome[], ok: (o: Outcome) => boolean): void {
  const k = outcomes.length;
  const succeeded = outcomes.filter(ok).length;
  rec.figure(`release→all ${verb}`, Math.max(...outcomes.map((o) => o.at)) - releaseAt, 'ms');
  rec.figure(`${verb} during hold`, outcomes.filter((o) => o.at < releaseAt).length, 'count', 'none');
  rec.figure(`${verb} ok`, succeeded, 'count', 'higher');
  rec.check(succeeded === k, `${k - succeeded} of ${k} not ${verb}: ${errorsOf(outcomes).join('; ')}`);
}

/** A resume answered with its thread and the one turn it had. */
export const resumedWithTurn = (o: Outcome): boolean => o.result?.thread?.turns?.length === 1;
