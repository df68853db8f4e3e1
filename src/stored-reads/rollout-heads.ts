// What `thread/list` learned from each rollout's head, kept between calls. Reading the heads
// was the whole cost of a listing: the reference's session_meta alone is ~22 KB, so a home of
// 5,000 rollouts meant ~100 MB read and parsed per call, and the other requests waited beside
// it (bench case `thread-list`). A head is the session_meta line and the lines up to the first
// user message; once that message is on disk the head never changes, since a rollout only
// grows by appends. So a listing reads only the heads it has not seen whole: a new file, one
// replaced (another inode or birth time) or cut shorter, and one whose first user message had
// not arrived yet that has grown since. A listing by update time stats every file for its
// mtime and to tell those apart; a listing by creation time (the default) stats only the files
// whose heads are not whole and the ones its page shows.
import type { RolloutSummary } from '../common/stored-history-messages.js';

/** A summary without its updatedAt, which comes from each listing's stat. */
export type RolloutHead = Omit<RolloutSummary, 'updatedAtMs'> & { path: string };

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

// Heads kept at most, and the characters their strings may hold together (~32 MB as UTF-16 at
// worst); past either the oldest learned is forgotten first, and read again when next listed.
const MAX_HEADS = 100_000;
const MAX_KEPT_CHARS = 16 * 1024 * 1024;
// A head whose preview is longer (a pasted file as the first message) is read again at each
// listing rather than kept: a few such threads must not hold megabytes.
const MAX_KEPT_PREVIEW_CHARS = 16 * 1024;
// What an entry holds beside its strings (objects, map slot, numbers), counted in characters.
const ENTRY_OVERHEAD_CHARS = 256;

export class RolloutHeads {
  readonly #entries = new Map<string, Entry>();
  #chars = 0;

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
    this.forget(path);
    if (head !== null && head.preview.length > MAX_KEPT_PREVIEW_CHARS) return;
    this.#entries.set(path, { ...file, head, whole });
    this.#chars += charsOf(path, head);
    while (this.#entries.size > 0 && (this.#entries.size > MAX_HEADS || this.#chars > MAX_KEPT_CHARS)) this.forget(this.#entries.keys().next().value as string);
  }

  /** Forgets every file a full walk did not find (deleted or moved away). */
  retainOnly(paths: ReadonlySet<string>): void {
    for (const path of [...this.#entries.keys()]) if (!paths.has(path)) this.forget(path);
  }

  /** The characters the kept heads' strings hold, with each entry's overhead (for the budget). */
  get chars(): number {
    return this.#chars;
  }

  /** Drops what was kept for `path`; the next listing reads it again. */
  forget(path: string): void {
    const entry = this.#entries.get(path);
    if (entry === undefined) return;
    this.#entries.delete(path);
    this.#chars -= charsOf(path, entry.head);
  }

  get size(): number {
    return this.#entries.size;
  }
}

function charsOf(path: string, head: RolloutHead | null): number {
  // The map's key and the head's own path are one string: counted once.
  let chars = ENTRY_OVERHEAD_CHARS + path.length;
  for (const [key, value] of Object.entries(head ?? {})) if (key !== 'path' && typeof value === 'string') chars += value.length;
  return chars;
}
