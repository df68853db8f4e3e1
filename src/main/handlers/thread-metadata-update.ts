// `thread/metadata/update`, as codex 0.171.0 answers it
// (test/fixtures/reference-answers/thread-metadata.jsonl): patches a thread's Git facts and its
// Daybreak choice, loaded here or stored (another process's writer does not matter: no history
// is written), and answers the thread as a read shows it. thread-host keeps no projects, so
// any project but "" (clear) is "project not found", as for the reference without that project.
// Durable in thread-host's own file (store/files/thread-metadata.ts), or on the PostgreSQL
// store in the threads row every host shares (store/postgres/postgres-thread-metadata.ts): the reference
// keeps these only in its state database, which thread-host does not write.
import type { Connection } from '../connections.js';
import { invalidRequest, noRolloutFound } from '../../common/errors.js';
import type { HostContext } from '../host-context.js';
import type { threadMetadataUpdateParams } from '../protocol/discovery-params.js';
import { requireThreadId } from '../protocol/thread-id.js';
import { loadedThreadView } from '../protocol/thread-view.js';
import { afterPendingLoad } from '../threads/pending-load.js';
import { storedThreadRead, withThreadFacts } from './shown-thread.js';

export async function threadMetadataUpdate(ctx: HostContext, _connection: Connection, params: ReturnType<typeof threadMetadataUpdateParams>): Promise<unknown> {
  const id = requireThreadId(params.threadId);
  const { gitInfo, projectId, daybreakEnabled } = params;
  if (gitInfo !== null && gitInfo.sha === undefined && gitInfo.branch === undefined && gitInfo.originUrl === undefined) {
    throw invalidRequest('gitInfo must include at least one field');
  }
  if (gitInfo === null && projectId === null && daybreakEnabled === null) throw invalidRequest('thread metadata update must include at least one field');
  if (projectId !== null && projectId !== '') throw invalidRequest(`project not found: ${projectId}`);
  await afterPendingLoad(ctx, id, () => undefined);
  const loaded = ctx.directory.get(id);
  if (loaded?.readsFromTranscript && loaded.identity) {
    await ctx.store.metadata.update(id, { gitInfo, daybreakEnabled }, ctx.clock.now());
    return { thread: withThreadFacts(ctx, loadedThreadView(loaded, null)) };
  }
  const location = await ctx.store.threads.locate(id);
  if (location === null) throw noRolloutFound(id);
  await ctx.store.metadata.update(id, { gitInfo, daybreakEnabled }, ctx.clock.now());
  const answer = await ctx.storedHistory.read(storedThreadRead(ctx, id, location, false), 'thread/metadata/update');
  if (answer.kind === 'noRollout') throw noRolloutFound(id);
  return answer.result;
}
