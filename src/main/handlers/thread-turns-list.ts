// `thread/turns/list`: one page of a thread's turns, newest first by default, loaded or not (then
// read by the stored-history worker). It never loads or subscribes the thread.
import type { Connection } from '../connections.js';
import { invalidRequest, threadNotLoaded } from '../../common/errors.js';
import type { HostContext } from '../host-context.js';
import type { threadTurnsListParams } from '../protocol/method-params.js';
import { requireThreadId } from '../protocol/thread-id.js';
import { turnsPage, type TurnsPageRequest } from '../../common/rollout/history-pages.js';
import { historyOf } from '../threads/thread-history.js';

export async function threadTurnsList(ctx: HostContext, _connection: Connection, params: ReturnType<typeof threadTurnsListParams>): Promise<unknown> {
  const id = requireThreadId(params.threadId);
  const page: TurnsPageRequest = { cursor: params.cursor, limit: params.limit, sortDirection: params.sortDirection, itemsView: params.itemsView };
  const history = await historyOf(ctx, id);
  if (history.kind === 'unknown') throw threadNotLoaded(id);
  if (history.kind === 'notMaterialized') {
    throw invalidRequest(`thread ${id} is not materialized yet; thread/turns/list is unavailable before first user message`);
  }
  if (history.kind === 'loaded') return turnsPage(history.source, page);
  const answer = await ctx.storedHistory.read({ kind: 'turns', threadId: id, location: history.location, page }, 'thread/turns/list');
  if (answer.kind === 'noRollout') throw threadNotLoaded(id);
  return answer.result;
}
