// The diff of a turn's patches so far, as the reference sends it in `turn/diff/updated`
// (codex 0.171.0, probed): each file the turn's patches touched, from the content it had when
// a patch first touched it in the turn to what it holds now, in git's format:
//
//   diff --git a/<path> b/<path>
//   new file mode 100644 | deleted file mode 100644     (an added or a deleted file)
//   index <blob sha1>..<blob sha1>                      (40 zeros for no file)
//   --- a/<path> | /dev/null
//   +++ b/<path> | /dev/null
//   @@ hunks with 3 lines of context @@
//
// A path is relative to the git work tree it is in, else to the thread's cwd when inside it,
// else absolute (which makes `a//abs/path`, as the reference prints it). A moved file is one
// entry from its old path to its new one. Files sorted by their first path; a file back to
// its first content drops out. Changes a command made are not tracked, but one a patch then
// touches starts from what the command left.
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative } from 'node:path';
import type { FileChange } from './file-change.js';
import { unifiedDiff } from './unified-diff.js';

const NO_BLOB = '0'.repeat(40);
const CONTEXT_LINES = 3;

interface Baseline {
  /** Where the file is now (its path unless a patch moved it). */
  current: string;
  /** Its content when the turn first touched it; null when it did not exist. */
  text: string | null;
  mode: string;
}

export class TurnDiffTracker {
  readonly #cwd: string;
  /** By the file's first path. */
  readonly #files = new Map<string, Baseline>();
  readonly #gitRoots = new Map<string, string | null>();
  /** The last diff sent, which the turn's end sends again. */
  lastDiff: string | null = null;

  constructor(cwd: string) {
    this.#cwd = cwd;
  }

  /** Before a patch is written: the first content of each file it touches, and where it moves them. */
  async beforePatch(changes: readonly FileChange[]): Promise<void> {
    for (const change of changes) {
      const moved = change.kind.type === 'update' ? change.kind.move_path : null;
      const tracked = [...this.#files.values()].find((file) => file.current === change.path);
      if (tracked === undefined) this.#files.set(change.path, { current: change.path, ...(await snapshot(change.path)) });
      if (moved === null) continue;
      (tracked ?? this.#files.get(change.path)!).current = moved;
    }
  }

  /** The diff from every first content to now; null when nothing differs. */
  async diff(): Promise<string | null> {
    const parts: Array<{ key: string; text: string }> = [];
    for (const [first, baseline] of this.#files) {
      const now = await snapshot(baseline.current);
      if (baseline.current === first && now.text === baseline.text) continue;
      const left = baseline.text === null ? null : await this.#display(first);
      const right = now.text === null ? null : await this.#display(baseline.current);
      if (left === null && right === null) continue;
      parts.push({ key: left ?? right!, text: fileDiff(left, right, baseline, now) });
    }
    if (parts.length === 0) return null;
    return parts.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).map((part) => part.text).join('');
  }

  async #display(path: string): Promise<string> {
    const root = await this.#gitRootOf(dirname(path));
    if (root !== null) return relative(root, path);
    const rel = relative(this.#cwd, path);
    return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
  }

  // The nearest directory at or above `dir` that holds `.git`; null when none does.
  async #gitRootOf(dir: string): Promise<string | null> {
    const known = this.#gitRoots.get(dir);
    if (known !== undefined) return known;
    const found = (await exists(join(dir, '.git'))) ? dir : dirname(dir) === dir ? null : await this.#gitRootOf(dirname(dir));
    this.#gitRoots.set(dir, found);
    return found;
  }
}

function fileDiff(left: string | null, right: string | null, before: Baseline, now: { text: string | null; mode: string }): string {
  const header = [`diff --git a/${left ?? right} b/${right ?? left}`];
  if (left === null) header.push(`new file mode ${now.mode}`);
  if (right === null) header.push(`deleted file mode ${before.mode}`);
  header.push(`index ${blobId(before.text)}..${blobId(now.text)}`);
  header.push(left === null ? '--- /dev/null' : `--- a/${left}`);
  header.push(right === null ? '+++ /dev/null' : `+++ b/${right}`);
  return `${header.join('\n')}\n${unifiedDiff(before.text ?? '', now.text ?? '', CONTEXT_LINES)}`;
}

// git's object id of a blob: the SHA-1 of `blob <length>\0<content>`.
function blobId(text: string | null): string {
  if (text === null) return NO_BLOB;
  const bytes = Buffer.from(text, 'utf8');
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

async function snapshot(path: string): Promise<{ text: string | null; mode: string }> {
  try {
    const [text, info] = await Promise.all([readFile(path, 'utf8'), stat(path)]);
    return { text, mode: (info.mode & 0o111) !== 0 ? '100755' : '100644' };
  } catch {
    return { text: null, mode: '100644' };
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
