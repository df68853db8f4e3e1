// `thread/items/list`: one page of a paginated thread's items, oldest first by default, across
// the thread or within one turn, loaded or not (then read by the stored-history worker). Legacy
// history records no item positions, so, as with the reference, its items are not paged
// (-32601).
import type { Connection } from '../connections.js';
import type { HostContext } from '../host-context.js';
import type { threadItemsListParams } from '../protocol/method-params.js';
import { requireThreadId } from '../protocol/thread-id.js';
import { checkItemsRequest, itemsPage, type ItemsPageRequest } from '../../common/rollout/history-pages.js';
import { historyOf } from '../threads/thread-history.js';

export async function threadItemsList(ctx: HostContext, _connection: Connection, params: ReturnType<typeof threadItemsListParams>): Promise<unknown> {
  const id = requireThreadId(params.threadId);
  const page: ItemsPageRequest = { turnId: params.turnId, cursor: params.cursor, limit: params.limit, sortDirection: params.sortDirection };
  checkItemsRequest(page);
  const history = await historyOf(ctx, id);
  if (history.kind === 'stored') {
    const answer = await ctx.storedHistory.read({ kind: 'items', threadId: id, location: history.location, page }, 'thread/items/list');
    if (answer.kind === 'answer') return answer.result;
  }
  return itemsPage(history.kind === 'loaded' ? history.source : null, page);
}
