// What `thread/list` learned from each rollout's head, kept between calls. Reading the heads
// was the whole cost of a listing: the reference's session_meta alone is ~22 KB, so a home of
// 5,000 rollouts meant ~100 MB read and parsed per call (~700 ms, and the other requests'
// p99 rose to ~7 ms beside it). A head is the session_meta line and the lines up to the first
// user message; once that message is on disk the head never changes, since a rollout only
// grows by appends. So a listing reads only the heads it has not seen whole: a new file, one
// replaced (another inode or birth time) or cut shorter, and one whose first user message had
// not arrived yet that has grown since. A listing by update time stats every file for its
// mtime and to tell those apart; a listing by creation time (the default) stats only the files
// whose heads are not whole and the ones its page shows.
import type { RolloutSummary } from './rollout-locator.js';

/** A summary without its updatedAt, which comes from each listing's stat. */
export type RolloutHead = Omit<RolloutSummary, 'updatedAtMs'>;

/**
 * What one stat says about a rollout file. The inode and birth time together tell a replaced
 * file from the same one: a file deleted and created again at once often gets its inode back.
 */
export interface RolloutFileState {
  ino: number;
  bornMs: number;
  size: number;
}

interface Entry extends RolloutFileState {
  /** null: the file has no usable session_meta (yet, or ever). */
  head: RolloutHead | null;
  /** The head reached the first user message, so appends cannot change it. */
  whole: boolean;
}

// Heads kept at most (the oldest learned forgotten first): with short previews ~0.5 KB each.
const MAX_HEADS = 100_000;
// A head whose preview is longer (a pasted file as the first message) is read again at each
// listing rather than kept: a few such threads must not hold megabytes.
const MAX_KEPT_PREVIEW_CHARS = 16 * 1024;

export class RolloutHeads {
  readonly #entries = new Map<string, Entry>();

  /** The head last read from `path`, if the file is as it was then; undefined means read it. */
  get(path: string, file: RolloutFileState): RolloutHead | null | undefined {
    const entry = this.#entries.get(path);
    if (entry === undefined || entry.ino !== file.ino || entry.bornMs !== file.bornMs || file.size < entry.size) return undefined;
    if (entry.whole || entry.size === file.size) return entry.head;
    return undefined;
  }

  /** The head kept for `path` if it was read whole (final while the file is the same one). */
  whole(path: string): RolloutHead | undefined {
    const entry = this.#entries.get(path);
    return entry?.whole === true && entry.head !== null ? entry.head : undefined;
  }

  /** Remembers the head read from `path` when it had the state `file`. */
  set(path: string, file: RolloutFileState, head: RolloutHead | null, whole: boolean): void {
    this.#entries.delete(path);
    if (head !== null && head.preview.length > MAX_KEPT_PREVIEW_CHARS) return;
    this.#entries.set(path, { ...file, head, whole });
    if (this.#entries.size > MAX_HEADS) this.#entries.delete(this.#entries.keys().next().value as string);
  }

  /** Forgets every file a full walk did not find (deleted or moved away). */
  retainOnly(paths: ReadonlySet<string>): void {
    for (const path of this.#entries.keys()) if (!paths.has(path)) this.#entries.delete(path);
  }

  get size(): number {
    return this.#entries.size;
  }
}
