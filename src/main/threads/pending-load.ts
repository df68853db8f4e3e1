// Requests about a thread that is still loading (a cold resume waiting for its lock or its
// rollout) queue behind that load in the thread's mailbox, so they see its outcome; requests
// about any other thread, and about loaded threads, are answered at once (a loaded thread's
// actor may still be being placed: commands for it wait for that themselves, actor-link.ts).
import type { HostContext } from '../host-context.js';

export function afterPendingLoad<T>(ctx: HostContext, threadId: string, answer: () => T): T | Promise<T> {
  const thread = ctx.directory.get(threadId);
  if (thread?.lifecycle.kind !== 'loading') return answer();
  return thread.mailbox.post(answer);
}
