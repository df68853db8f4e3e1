// A writer-lock backend that times every acquisition for `/metrics` and otherwise passes
// through: the seam stays the backend's, whichever backend it is.
import type { Clock } from '../../common/clock.js';
import type { AcquireOptions, AcquireResult, ReleaseResult, WriterLock, WriterLockBackend } from '../store/writer-lock-backend.js';
import type { HostRecorder } from './host-recorder.js';

export class MeteredWriterLocks<Lock extends WriterLock> implements WriterLockBackend<Lock> {
  /** The inner backend's, when it has one (lockfile), so the unloader still waits for it. */
  readonly cleared?: (lock: Lock) => Promise<void>;
  /** The inner backend's too, so shutdown still waits for it. */
  readonly settled?: () => Promise<void>;

  constructor(
    private readonly inner: WriterLockBackend<Lock>,
    private readonly recorder: HostRecorder,
    private readonly clock: Clock,
  ) {
    if (inner.cleared) this.cleared = (lock) => inner.cleared!(lock);
    if (inner.settled) this.settled = () => inner.settled!();
  }

  async acquire(threadId: string, options?: AcquireOptions): Promise<AcquireResult<Lock>> {
    const startedAt = this.clock.now();
    const result = await this.inner.acquire(threadId, options);
    this.recorder.lockAcquired(result.kind, this.clock.now() - startedAt);
    return result;
  }

  release(lock: Lock): ReleaseResult {
    return this.inner.release(lock);
  }

  ownedCount(): number {
    return this.inner.ownedCount();
  }

  pendingCount(): number {
    return this.inner.pendingCount();
  }

  close(): ReadonlyMap<string, ReleaseResult> {
    return this.inner.close();
  }
}
