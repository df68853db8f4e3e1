// `thread/read`: a loaded thread is answered from the main thread's transcript; an unloaded one
// from its rollout on disk, by the stored-history worker. It never loads or subscribes the
// thread. Full history of a paginated thread is deprecated by the reference in favour of the
// paged reads; it says so in a `deprecationNotice` before the answer, and so do we.
import type { HistoryMode } from '../../common/rollout/rollout-reader.js';
import type { Connection } from '../connections.js';
import { invalidRequest, notSupportedYet, threadNotLoaded } from '../../common/errors.js';
import type { HostContext } from '../host-context.js';
import type { threadReadParams } from '../protocol/method-params.js';
import { requireThreadId } from '../protocol/thread-id.js';
import { loadedThreadView } from '../protocol/thread-view.js';
import { storedThreadRead, withThreadFacts } from './shown-thread.js';
import { loadedReadState } from './thread-read-state.js';
import { fullHistory } from '../threads/full-history.js';
import { afterHistoryLoaded, afterPendingLoad } from '../threads/pending-load.js';

const READ_DEPRECATION =
  'Full-history hydration is deprecated for paginated threads; omit `includeTurns` or set it to `false`, then page with `thread/turns/list` and `thread/items/list`.';

export async function threadRead(ctx: HostContext, connection: Connection, params: ReturnType<typeof threadReadParams>): Promise<unknown> {
  const id = requireThreadId(params.threadId);
  await afterPendingLoad(ctx, id, () => undefined);
  // Turns are read from the transcript, once it is filled after a cold resume, unless that resume's
  // serialized history is kept: it is the whole history until the fill ends (full-history.ts).
  if (params.includeTurns && ctx.directory.get(id)?.resumedHistoryJson === null) await afterHistoryLoaded(ctx, id, () => undefined);
  const thread = ctx.directory.get(id);
  if (thread?.readsFromTranscript && thread.identity) {
    if (params.includeTurns && thread.identity.ephemeral) throw invalidRequest('ephemeral threads do not support includeTurns');
    if (params.includeTurns) warnFullHistory(ctx, connection, thread.historyMode);
    if (params.includeTurns && !thread.materialized) {
      if (thread.historyMode === 'paginated') throw notSupportedYet('list_turns');
      throw invalidRequest(`thread ${id} is not materialized yet; includeTurns is unavailable before first user message`);
    }
    const turns = params.includeTurns ? fullHistory(thread) : null;
    return { thread: withThreadFacts(ctx, loadedThreadView(thread, turns)), readState: loadedReadState(ctx, id, thread.materialized, thread.identity.ephemeral) };
  }
  // An archived thread is read where the archive keeps it, as the reference reads it.
  const location = (await ctx.store.threads.locate(id)) ?? (await ctx.store.threads.locateArchived(id));
  if (location === null) throw threadNotLoaded(id);
  // Read, replayed and serialized by the stored-history worker: a long thread's rollout is tens
  // of megabytes, and the main thread only sends the bytes.
  const answer = await ctx.storedHistory.read({ ...storedThreadRead(ctx, id, location, params.includeTurns), readState: ctx.store.readStates.get(id) }, 'thread/read');
  if (answer.kind === 'noRollout') throw threadNotLoaded(id);
  if (params.includeTurns) warnFullHistory(ctx, connection, answer.historyMode);
  return answer.result;
}

function warnFullHistory(ctx: HostContext, connection: Connection, mode: HistoryMode): void {
  if (mode === 'paginated') ctx.outgoing.notify(connection.id, 'deprecationNotice', { summary: READ_DEPRECATION, details: null });
}
