// `thread/items/list`: one page of a paginated thread's items, oldest first by default, across
// the thread or within one turn. Legacy history records no item positions, so, as with the
// reference, its items are not paged (-32601).
import type { Connection } from '../connections.js';
import type { HostContext } from '../host-context.js';
import type { threadItemsListParams } from '../protocol/method-params.js';
import { requireThreadId } from '../protocol/thread-id.js';
import { checkItemsRequest, itemsPage } from '../threads/history-pages.js';
import { historyOf } from '../threads/thread-history.js';

export async function threadItemsList(ctx: HostContext, _connection: Connection, params: ReturnType<typeof threadItemsListParams>): Promise<unknown> {
  const id = requireThreadId(params.threadId);
  checkItemsRequest(params);
  const history = await historyOf(ctx, id);
  return itemsPage(history.kind === 'found' ? history.source : null, params);
}
