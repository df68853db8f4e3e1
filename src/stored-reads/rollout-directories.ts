// The rollout files under <home>/sessions as the last walk found them, kept per directory. A
// listing reads the heads of a page only (thread-page.ts), so what is left of its cost is the
// walk: on a home of 5,000 rollouts, ~5,000 directory entries, names and paths made again at
// each call, and the garbage they leave (most of a repeated listing, bench case `thread-list`).
// A directory's entries change only when its mtime does, so a walk now stats each directory and
// reads again only the ones that changed.
//
// The mtime is trusted only once it is older than the file system's time granularity when the
// entries were read: an entry added within the same tick as the last change (a kernel tick of
// a few ms on Linux; two seconds on FAT, whole seconds on some network mounts) would leave the
// mtime as it was. A directory read while its last change was that recent is read again next
// time (git's "racy" index entries, the same way). The check compares this host's clock with
// an mtime the file server wrote; a server whose clock lags by more than that window (a NAS
// drifting seconds) could make a directory look settled too soon, so no directory is trusted
// longer than MAX_TRUST_MS after it was read: a rollout such a change hides is listed within
// that time, as it would be once an NFS client's attribute cache expires.
//
// The walk never follows symbolic links, so nothing outside <home>/sessions is ever returned.
import { lstatSync, readdirSync, type Dirent, type Stats } from 'node:fs';
import { newestNameFirst, parseRolloutFileName } from '../common/rollout/rollout-path.js';

/** A rollout file the walk found, known by its name only. */
export interface RolloutFile {
  path: string;
  threadId: string;
  /** The name's time (see RolloutFileName). */
  nameTimeMs: number;
}

interface KnownDirectory {
  ino: number;
  mtimeMs: number;
  /** When it was read (this host's clock). */
  readAtMs: number;
  /** Its mtime was old enough when read (see above) to tell every later change. */
  settled: boolean;
  /** Newest name first. */
  subdirectories: string[];
  files: RolloutFile[];
}

/** How far a settled directory's mtime must be behind the clock when it is read. */
const FINE_GRANULARITY_MS = 100;
/** The same, for an mtime in whole seconds: a file system that may keep no finer time. */
const COARSE_GRANULARITY_MS = 2_000;
/** How long a directory read is trusted at most, whatever its mtime says (see above). */
const MAX_TRUST_MS = 30_000;
/** Files kept at most, with MAX_HEADS in rollout-heads.ts; directories past it are read each walk. */
const MAX_KEPT_FILES = 100_000;

export class RolloutDirectories {
  #known = new Map<string, KnownDirectory>();
  /** The last walk's result, returned as it is while no directory changes. */
  #last: readonly RolloutFile[] = [];
  #lastRoot: string | null = null;

  /**
   * Every rollout file under `root`, depth-first over real directories, newest name first;
   * `changed` unless every directory was taken as the last walk of `root` kept it (a directory
   * not settled then is read again, and counts as changed).
   */
  walk(root: string): { files: readonly RolloutFile[]; changed: boolean } {
    const known = new Map<string, KnownDirectory>();
    const files: RolloutFile[] = [];
    let changed = root !== this.#lastRoot;
    let keptFiles = 0;
    const now = Date.now();
    const visit = (path: string, stat: Stats): void => {
      let directory: KnownDirectory | null | undefined = this.#known.get(path);
      if (directory === undefined || !directory.settled || directory.ino !== stat.ino || directory.mtimeMs !== stat.mtimeMs || now - directory.readAtMs >= MAX_TRUST_MS) {
        directory = read(path, stat);
        changed = true;
        if (directory === null) return; // unreadable, or gone since its parent was read: just empty
      }
      if (keptFiles + directory.files.length <= MAX_KEPT_FILES) {
        known.set(path, directory);
        keptFiles += directory.files.length;
      }
      for (const name of directory.subdirectories) {
        const child = `${path}/${name}`;
        const childStat = realDirectory(child);
        if (childStat === null) changed = true; // replaced by a file or a link, or gone
        else visit(child, childStat);
      }
      for (const file of directory.files) files.push(file);
    };
    const rootStat = realDirectory(root);
    if (rootStat !== null) visit(root, rootStat);
    changed ||= known.size !== this.#known.size;
    this.#known = known;
    this.#lastRoot = root;
    if (changed) this.#last = files;
    return { files: this.#last, changed };
  }
}

/** The directory's entries (rollout files and real subdirectories), or null when unreadable. */
function read(path: string, stat: Stats): KnownDirectory | null {
  const readAtMs = Date.now();
  let entries: Dirent[];
  try {
    entries = readdirSync(path, { withFileTypes: true });
  } catch {
    return null;
  }
  entries.sort(newestNameFirst);
  const subdirectories: string[] = [];
  const files: RolloutFile[] = [];
  for (const entry of entries) {
    // Dirent types come from lstat semantics: a symlink is neither a directory nor a file.
    if (entry.isDirectory()) subdirectories.push(entry.name);
    else if (entry.isFile()) {
      const name = parseRolloutFileName(entry.name);
      if (name !== null && name.nameTimeMs !== null) files.push({ path: `${path}/${entry.name}`, threadId: name.threadId, nameTimeMs: name.nameTimeMs });
    }
  }
  const granularityMs = stat.mtimeMs % 1000 === 0 ? COARSE_GRANULARITY_MS : FINE_GRANULARITY_MS;
  return { ino: stat.ino, mtimeMs: stat.mtimeMs, readAtMs, settled: readAtMs - stat.mtimeMs >= granularityMs, subdirectories, files };
}

function realDirectory(path: string): Stats | null {
  try {
    const stat = lstatSync(path, { throwIfNoEntry: false });
    return stat?.isDirectory() === true ? stat : null;
  } catch {
    return null; // ENOTDIR, EACCES: nothing to walk
  }
}
