// What a store tells the host it was opened for, once the host is built: a writer lock (or a
// thread's ownership) was lost behind its back, or a thread's queue changed other than by a
// request here. The store is opened before the host exists, so these are bound late.
import type { LockLoss } from './writer-lock-backend.js';
import type { ThreadId } from '../../common/thread-id.js';

export interface StoreHooks {
  /** Stop, fail, warn, unload (threads/lock-loss.ts). */
  lockLost: (loss: LockLoss) => void;
  /** The thread's queue changed here by the store's own doing: its subscribers hear of it. */
  queueChangedHere: (threadId: ThreadId) => void;
}
