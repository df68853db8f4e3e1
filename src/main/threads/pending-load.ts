// Requests about a thread that is still loading (a cold resume waiting for its lock or its
// rollout) queue behind that load in the thread's mailbox, so they see its outcome; requests
// about any other thread, and about loaded threads, are answered at once (a loaded thread's
// actor may still be being placed: commands for it wait for that themselves, actor-link.ts).
// Requests that need the turns also wait for a cold resume's history to enter the transcript
// (transcript-fill.ts), which takes a long thread a few event-loop iterations after its resume.
import type { HostContext } from '../host-context.js';
import type { ThreadId } from '../../common/thread-id.js';

export function afterPendingLoad<T>(ctx: HostContext, threadId: ThreadId, answer: () => T): T | Promise<T> {
  const thread = ctx.directory.get(threadId);
  if (thread?.lifecycle.kind !== 'loading') return answer();
  return thread.mailbox.post(answer);
}

/** Like afterPendingLoad, then also after the thread's resumed history is in its transcript. */
export function afterHistoryLoaded<T>(ctx: HostContext, threadId: ThreadId, answer: () => T): T | Promise<T> {
  const thread = ctx.directory.get(threadId);
  if (thread === undefined || (thread.lifecycle.kind !== 'loading' && thread.transcriptFill === null)) return answer();
  return (async () => {
    await afterPendingLoad(ctx, threadId, () => undefined);
    // Looked up again: the load may have started a fill (a fill takes event-loop iterations, so this
    // never spins), or ended, leaving another incarnation or none.
    for (let fill = ctx.directory.get(threadId)?.transcriptFill; fill; fill = ctx.directory.get(threadId)?.transcriptFill) await fill;
    return answer();
  })();
}
