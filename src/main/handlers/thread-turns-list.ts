// `thread/turns/list`: one page of a thread's turns, newest first by default, loaded or not. It
// never loads or subscribes the thread.
import type { Connection } from '../connections.js';
import { invalidRequest, threadNotLoaded } from '../errors.js';
import type { HostContext } from '../host-context.js';
import type { threadTurnsListParams } from '../protocol/method-params.js';
import { requireThreadId } from '../protocol/thread-id.js';
import { turnsPage } from '../threads/history-pages.js';
import { historyOf } from '../threads/thread-history.js';

export async function threadTurnsList(ctx: HostContext, _connection: Connection, params: ReturnType<typeof threadTurnsListParams>): Promise<unknown> {
  const id = requireThreadId(params.threadId);
  const history = await historyOf(ctx, id);
  if (history.kind === 'unknown') throw threadNotLoaded(id);
  if (history.kind === 'notMaterialized') {
    throw invalidRequest(`thread ${id} is not materialized yet; thread/turns/list is unavailable before first user message`);
  }
  return turnsPage(history.source, params);
}
