// What thread/metadata/update sets, on the PostgreSQL thread store: the threads row every host
// shares holds it (src/common/postgres/metadata-patches.ts), and each patch applies to the row
// as it is then. Answers come from memory, as the files store's do (thread-metadata.ts): this
// host remembers what its patches left and what each lookup of a thread found (`learn`, from
// postgres-thread-store.ts). So a thread loaded here that is patched through another host shows
// the old metadata here until this host looks it up again or patches it. A thread the store
// holds no row of (an ephemeral one) has its metadata in memory only.
import type { Pool } from 'pg';
import { patchMetadata, type StoredMetadata } from '../../../common/postgres/metadata-patches.js';
import type { ThreadMetadataView } from '../../../common/stored-history-messages.js';
import { patchedGitInfo, type ThreadMetadataPatch } from '../files/thread-metadata.js';
import type { MetadataKeeper } from '../thread-state-keepers.js';
import type { ThreadId } from '../../../common/thread-id.js';

const WRITE_DEADLINE_MS = 10_000;

export class PostgresThreadMetadata implements MetadataKeeper {
  readonly #byId = new Map<string, ThreadMetadataView>();

  constructor(private readonly pool: Pool) {}

  get(threadId: ThreadId): ThreadMetadataView | null {
    return this.#byId.get(threadId) ?? null;
  }

  /** What a lookup of the thread found in the store. */
  learn(threadId: ThreadId, stored: StoredMetadata): void {
    const id = threadId;
    if (stored.gitInfo === null && stored.daybreakEnabled === null) this.#byId.delete(id);
    else this.#byId.set(id, metadataViewOf(stored));
  }

  async update(threadId: ThreadId, patch: ThreadMetadataPatch, _nowMs: number): Promise<ThreadMetadataView> {
    const id = threadId;
    const git = patch.gitInfo;
    const storedPatch = { gitInfo: git === null ? null : { sha: git.sha, branch: git.branch, origin_url: git.originUrl }, daybreakEnabled: patch.daybreakEnabled };
    const stored = await patchMetadata(this.pool, threadId, storedPatch, { deadlineMs: WRITE_DEADLINE_MS });
    const before = this.#byId.get(id) ?? { gitInfo: null, daybreakEnabled: null };
    const after = stored === null ? { gitInfo: patchedGitInfo(before.gitInfo, git), daybreakEnabled: patch.daybreakEnabled ?? before.daybreakEnabled } : metadataViewOf(stored);
    this.#byId.set(id, after);
    return after;
  }

  /** The row went with the thread (thread-changes.ts); only this host's memory of it is left. */
  async forget(threadId: ThreadId): Promise<void> {
    this.#byId.delete(threadId);
  }
}

export function metadataViewOf(stored: StoredMetadata): ThreadMetadataView {
  const git = stored.gitInfo;
  return {
    gitInfo: git === null ? null : { sha: git.sha ?? null, branch: git.branch ?? null, originUrl: git.origin_url ?? null },
    daybreakEnabled: stored.daybreakEnabled,
  };
}
