// Requests about a thread that is still loading (a cold resume waiting for its lock or its
// rollout), or whose actor is still being placed (a thread/start answered before it), queue
// behind that in the thread's mailbox, so they see its outcome; requests about any other
// thread, and about loaded threads, are answered at once.
import type { HostContext } from '../host-context.js';

export function afterPendingLoad<T>(ctx: HostContext, threadId: string, answer: () => T): T | Promise<T> {
  const thread = ctx.directory.get(threadId);
  if (thread === undefined || (thread.lifecycle.kind !== 'loading' && thread.actorPlacement === null)) return answer();
  return thread.mailbox.post(answer);
}
