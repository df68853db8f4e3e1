// The lifecycle of a loaded thread as one discriminated union, changed only through
// `transition`, which refuses moves the table does not allow. No boolean flags.

/**
 * Why a thread left memory. The first reason given wins. 'lockLost': the writer lock was
 * compromised (its heartbeat failed, or another host took it over). 'archived', 'deleted': a
 * client archived or deleted it (the thread is unloaded before its rollout moves or goes).
 * 'reverted': thread/revert unloads it to load it again at once on its new rollout file.
 * 'resettled': a thread/resume with settings of a thread nobody is subscribed to unloads it to
 * load it again at once with them (thread-resume.ts).
 */
export type UnloadReason = 'idle' | 'shutdown' | 'workerLost' | 'loadFailed' | 'lockLost' | 'archived' | 'deleted' | 'reverted' | 'resettled';

/** Where a thread is in its loaded life. */
export type ThreadLifecycle =
  | { kind: 'loading'; since: number }
  | { kind: 'loaded'; since: number }
  | { kind: 'unloading'; reason: UnloadReason; since: number }
  | { kind: 'unloaded'; reason: UnloadReason };

export type LifecycleKind = ThreadLifecycle['kind'];

const ALLOWED: Record<LifecycleKind, readonly LifecycleKind[]> = {
  loading: ['loaded', 'unloading'],
  loaded: ['unloading'],
  unloading: ['unloaded'],
  unloaded: [],
};

/** Thrown when code asks for a move the lifecycle table forbids: a bug, never user input. */
export class LifecycleError extends Error {}

/** Returns `next` if moving from `current` to it is allowed, else throws. */
export function transition(current: ThreadLifecycle, next: ThreadLifecycle): ThreadLifecycle {
  if (!ALLOWED[current.kind].includes(next.kind)) {
    throw new LifecycleError(`illegal thread lifecycle transition ${current.kind} -> ${next.kind}`);
  }
  return next;
}
