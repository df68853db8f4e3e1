// What the stored-history worker keeps between `thread/list` calls: the rollout files each
// directory of <home>/sessions held when last read (rollout-directories.ts), and the heads read
// from them (rollout-heads.ts). Both only save reading again what cannot have changed.
import { join } from 'node:path';
import { SESSIONS_DIR } from '../common/rollout/rollout-path.js';
import { RolloutDirectories, type RolloutFile } from './rollout-directories.js';
import { RolloutHeads } from './rollout-heads.js';

export class ListingMemory {
  readonly #directories = new RolloutDirectories();
  /** The last walk's files in creation order, sorted again only when the walk changed. */
  #byNameTime: readonly RolloutFile[] = [];

  constructor(readonly heads: RolloutHeads = new RolloutHeads()) {}

  /** Every rollout file under <home>/sessions, newest name first; the heads of files gone are forgotten. */
  rolloutFiles(home: string): readonly RolloutFile[] {
    const { files, changed } = this.#directories.walk(join(home, SESSIONS_DIR));
    if (changed) {
      this.heads.retainOnly(new Set(files.map((file) => file.path)));
      this.#byNameTime = [...files].sort((a, b) => a.nameTimeMs - b.nameTimeMs || (a.threadId < b.threadId ? -1 : a.threadId > b.threadId ? 1 : 0));
    }
    return files;
  }

  /** The same files ordered by the time in their names, then by thread id, oldest first. */
  rolloutFilesByNameTime(home: string): readonly RolloutFile[] {
    this.rolloutFiles(home);
    return this.#byNameTime;
  }
}
