// What the stored-history worker keeps between `thread/list` calls: the rollout files each
// directory of <home>/sessions (and of <home>/archived_sessions, for archived listings) held
// when last read (rollout-directories.ts), and the heads read from them (rollout-heads.ts).
// Both only save reading again what cannot have changed.
import { join } from 'node:path';
import { ARCHIVED_SESSIONS_DIR, SESSIONS_DIR } from '../common/rollout/rollout-path.js';
import { RolloutDirectories, type RolloutFile } from './rollout-directories.js';
import { RolloutHeads } from './rollout-heads.js';

/** The archive's directory under the home (the reference's, as src/main/store/files/archived-rollouts.ts). */

/** One listed tree: its directories as last walked, and their files in creation order. */
interface Tree {
  directories: RolloutDirectories;
  files: readonly RolloutFile[];
  /** The last walk's files in creation order, sorted again only when the walk changed. */
  byNameTime: readonly RolloutFile[];
}

export class ListingMemory {
  // Keyed by root: listings of the live and the archived threads do not undo each other's memory.
  readonly #trees = new Map<string, Tree>();

  constructor(readonly heads: RolloutHeads = new RolloutHeads()) {}

  /** Every rollout file under <home>/sessions (or the archive), newest name first; the heads of files gone are forgotten. */
  rolloutFiles(home: string, archived = false): readonly RolloutFile[] {
    const root = rootOf(home, archived);
    let tree = this.#trees.get(root);
    if (tree === undefined) {
      // A worker serves one home: its two roots at most, and a test's homes one after another.
      if (this.#trees.size >= 2) this.#trees.clear();
      tree = { directories: new RolloutDirectories(), files: [], byNameTime: [] };
      this.#trees.set(root, tree);
    }
    const { files, changed } = tree.directories.walk(root);
    if (changed) {
      tree.files = files;
      tree.byNameTime = [...files].sort((a, b) => a.nameTimeMs - b.nameTimeMs || (a.threadId < b.threadId ? -1 : a.threadId > b.threadId ? 1 : 0));
      this.heads.retainOnly(new Set([...this.#trees.values()].flatMap((known) => known.files.map((file) => file.path))));
    }
    return files;
  }

  /** The same files ordered by the time in their names, then by thread id, oldest first. */
  rolloutFilesByNameTime(home: string, archived = false): readonly RolloutFile[] {
    this.rolloutFiles(home, archived);
    return this.#trees.get(rootOf(home, archived))!.byNameTime;
  }
}

/** The directory a listing walks. */
const rootOf = (home: string, archived: boolean): string => join(home, archived ? ARCHIVED_SESSIONS_DIR : SESSIONS_DIR);
