// `thread/loaded/list`: a page of the sorted ids of loaded threads, answered from the main
// thread's directory, in memory, never waiting on a worker or a lock.
import type { Connection } from '../connections.js';
import { invalidRequest } from '../../common/errors.js';
import type { HostContext } from '../host-context.js';
import type { threadLoadedListParams } from '../protocol/method-params.js';
import { EncodedJson } from '../protocol/encoded-json.js';
import { parseUuid } from '../protocol/uuid.js';
import type { LoadedPage } from '../threads/directory.js';

export function threadLoadedList(
  ctx: HostContext,
  _connection: Connection,
  params: ReturnType<typeof threadLoadedListParams>,
): LoadedPage | EncodedJson {
  // The reference answers an empty list before it looks at the cursor.
  if (ctx.directory.loadedCount === 0) return { data: [], nextCursor: null };
  if (params.cursor !== null && !parseUuid(params.cursor).ok) throw invalidRequest(`invalid cursor: ${params.cursor}`);
  // The whole list, the common poll, is answered from its cached serialization.
  if (params.cursor === null && (params.limit === null || params.limit >= ctx.directory.loadedCount)) return ctx.directory.fullPage();
  return ctx.directory.page(params.cursor, params.limit);
}
