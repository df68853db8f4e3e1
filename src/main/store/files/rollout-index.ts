// Where each thread's rollout lives, remembered so a cold resume or a read does not walk all of
// sessions/ on the main thread every time (a walk of a large home is a stall of sorting and
// name parsing, and 32 resumes at once would do it 32 times; bench case `resume-under-lock`).
// A path is learned
// when this host materializes a thread, and from every walk (a thread the reference reverted
// has several files: its rollout is the newest, history-base.ts); one walk serves every caller
// waiting on it. A remembered path is checked before use, so files moved or deleted by other
// processes are found again by a fresh walk.
import { basename } from 'node:path';
import { fsPromises } from '../../lazy-builtin.js';
import { withFsDeadline } from './fs-deadline.js';
import { walkRolloutPaths } from './rollout-locator.js';
import { isNewerRolloutFile, threadIdOfRolloutName } from '../../../common/rollout/rollout-path.js';
import type { ThreadId } from '../../../common/thread-id.js';

// Remembered paths kept at most (oldest forgotten first): about 15 MB at the limit, and a
// forgotten thread is found again by a walk.
const MAX_REMEMBERED = 100_000;

export class RolloutIndex {
  readonly #paths = new Map<string, string>();
  #walk: Promise<void> | null = null;

  constructor(private readonly home: string) {}

  /** Records where `threadId`'s rollout is (after this host created it). */
  remember(threadId: ThreadId, path: string): void {
    this.#set(threadId, path);
  }

  #set(id: string, path: string): void {
    this.#paths.delete(id);
    this.#paths.set(id, path);
    if (this.#paths.size > MAX_REMEMBERED) this.#paths.delete(this.#paths.keys().next().value as string);
  }

  /**
   * The rollout of `threadId`, or null when there is none under <home>/sessions; an internal
   * error when the filesystem does not answer within the home's file deadline (fs-deadline.ts).
   */
  find(threadId: ThreadId): Promise<string | null> {
    const id = threadId;
    return withFsDeadline(this.#find(id), `finding the rollout of thread ${id}`);
  }

  async #find(id: string): Promise<string | null> {
    const known = await this.#checked(id);
    if (known !== null) return known;
    // A walk already under way may have passed the file's directory before the file existed,
    // so after joining it an unknown id still gets a walk that starts now.
    if (this.#walk !== null) {
      await this.#walk;
      const found = await this.#checked(id);
      if (found !== null) return found;
    }
    await this.#rescan();
    return this.#checked(id);
  }

  async #checked(id: string): Promise<string | null> {
    const path = this.#paths.get(id);
    if (path === undefined) return null;
    try {
      await fsPromises().access(path);
      return path;
    } catch {
      this.#paths.delete(id);
      return null;
    }
  }

  #rescan(): Promise<void> {
    this.#walk ??= (async () => {
      try {
        const newest = new Map<string, string>();
        for await (const path of walkRolloutPaths(this.home)) {
          const id = threadIdOfRolloutName(basename(path));
          // The walk is newest first: of two first files of an id the first seen is kept.
          if (id !== null && isNewerRolloutFile(path, newest.get(id))) newest.set(id, path);
        }
        for (const [id, path] of newest) {
          if (isNewerRolloutFile(path, this.#paths.get(id))) this.#set(id, path);
        }
      } finally {
        this.#walk = null;
      }
    })();
    return this.#walk;
  }
}
