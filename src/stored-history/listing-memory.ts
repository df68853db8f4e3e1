// What the stored-history worker keeps between `thread/list` calls: the rollout files each
// directory of <home>/sessions held when last read (rollout-directories.ts), and the heads read
// from them (rollout-heads.ts). Both only save reading again what cannot have changed.
import { join } from 'node:path';
import { SESSIONS_DIR } from '../common/history/rollout-path.js';
import { RolloutDirectories, type RolloutFile } from './rollout-directories.js';
import { RolloutHeads } from './rollout-heads.js';

export class ListingMemory {
  readonly #directories = new RolloutDirectories();

  constructor(readonly heads: RolloutHeads = new RolloutHeads()) {}

  /** Every rollout file under <home>/sessions, newest name first; the heads of files gone are forgotten. */
  rolloutFiles(home: string): readonly RolloutFile[] {
    const { files, changed } = this.#directories.walk(join(home, SESSIONS_DIR));
    if (changed) this.heads.retainOnly(new Set(files.map((file) => file.path)));
    return files;
  }
}
