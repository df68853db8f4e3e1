// What every history backend is opened with: the actor's identity, its write fence and the
// writer's state, and the events a store reports through the actor (fenced, a notice).
import type { ActorEvent } from '../../common/actor-messages.js';
import type { WriteFence } from '../../common/write-fence.js';
import type { WriterLease } from '../../common/writer-lease.js';
import type { AppendFaults } from './files/rollout-appender.js';

export interface BackendContext {
  threadId: string;
  fence: WriteFence;
  /** The writer lock's lease (see ActorInit.writerLease); null when it cannot expire. */
  writerLease: WriterLease | null;
  /** Test hook standing in for the disk; null in production. */
  diskFaults: AppendFaults | null;
  /** An ephemeral fork answers with its turns (ActorInit.serializeHistory). */
  serializeHistory: boolean;
  emit: (event: ActorEvent) => void;
  /** Why this process may no longer write the history (its writer lock was lost); null while it may. */
  revoked: () => string | null;
}
