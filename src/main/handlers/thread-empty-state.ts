// Per-thread state thread-host never has: goals and background terminals. The interactive
// client reads both when it resumes a thread; each gets the reference's empty answer for a
// thread that exists, and its "thread not found" for one that does not. A goal belongs to a
// stored thread too (the reference answers for an unloaded one); terminals only to a loaded one.
import type { Connection } from '../connections.js';
import { threadNotFound } from '../../common/errors.js';
import type { HostContext } from '../host-context.js';
import type { backgroundTerminalsListParams, threadGoalGetParams } from '../protocol/discovery-params.js';
import { requireThreadId } from '../protocol/thread-id.js';

export async function threadGoalGet(ctx: HostContext, _connection: Connection, params: ReturnType<typeof threadGoalGetParams>): Promise<unknown> {
  const id = requireThreadId(params.threadId);
  if (ctx.directory.get(id) === undefined && (await ctx.store.threads.locate(id)) === null) throw threadNotFound(id);
  return { goal: null };
}

export function threadBackgroundTerminalsList(
  ctx: HostContext,
  _connection: Connection,
  params: ReturnType<typeof backgroundTerminalsListParams>,
): unknown {
  const id = requireThreadId(params.threadId);
  if (ctx.directory.get(id) === undefined) throw threadNotFound(id);
  return { data: [], nextCursor: null };
}
