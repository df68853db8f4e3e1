// The kernel's view of who holds which flock, for tests and the handoff bench, which must not trust the
// servers' own answers. /proc/locks names a lock by holder pid and device:inode only, so each lock is
// mapped back to a file through the holder's /proc/<pid>/fd links: an fd on that inode gives
// the path, and the kernel marks the path "(deleted)" when the inode is no longer linked (a
// holder of an orphaned lock file is exactly the bug the coordination lock exists to prevent).
//
//   /proc/locks   "3: FLOCK  ADVISORY  WRITE 4242 fd:00:917505 0 EOF"
//        │ pid 4242, inode 917505
//        ▼
//   /proc/4242/fd/23 ──stat──► ino 917505 ──readlink──► /home/thread-writer-locks/<id>.lock
import { readFileSync, readdirSync, readlinkSync, statSync } from 'node:fs';

/** One line of /proc/locks. */
export interface KernelLock {
  kind: string;
  mode: 'READ' | 'WRITE';
  pid: number;
  inode: number;
  /** A waiter ("->"), not a holder. */
  blocked: boolean;
}

/** A lock held by `pid` on the file now named `path`. */
export interface HeldLock {
  pid: number;
  mode: 'READ' | 'WRITE';
  path: string;
  /** The holder's file is no longer linked under any name. */
  deleted: boolean;
}

const DELETED_SUFFIX = ' (deleted)';

/** Parses one consistent snapshot of /proc/locks. */
export function readProcLocks(): KernelLock[] {
  const locks: KernelLock[] = [];
  for (const line of snapshotProcLocks().split('\n')) {
    // "<n>: [->] KIND ADVISORY|MANDATORY READ|WRITE pid maj:min:inode start end"
    const fields = line.trim().split(/\s+/);
    if (fields.length < 7) continue;
    const blocked = fields[1] === '->';
    const [kind, , mode, pid, device] = fields.slice(blocked ? 2 : 1);
    const inode = Number(device?.split(':')[2]);
    if ((mode !== 'READ' && mode !== 'WRITE') || !Number.isFinite(inode)) continue;
    locks.push({ kind: kind ?? '', mode, pid: Number(pid), inode, blocked });
  }
  return locks;
}

// /proc/locks is a seq_file: each read() returns whole records, but a later read() resumes by
// record index, so records that moved in between can come out twice (seen: one lock listed
// twice, which would pass for a second writer) or, rarely, not at all. The file is global to
// the machine and can be longer than one read, so it is read whole and identical records are
// merged; callers that wait for a lock to appear poll, which covers a record skipped once.
/** The text of /proc/locks, with duplicate records (same lock listed twice) removed. */
export function snapshotProcLocks(): string {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const line of readFileSync('/proc/locks', 'utf8').split('\n')) {
    // Drop the "<n>:" ordinal, which differs between the two copies of a repeated record.
    const record = line.replace(/^\s*\d+:\s*/, '');
    if (record === '' || seen.has(record)) continue;
    seen.add(record);
    lines.push(line);
  }
  return lines.join('\n');
}

/**
 * FLOCK locks held (not waited for) by `pids` on files whose path starts with `dirPrefix`.
 * A lock whose holder closed its fd between the two reads is left out: it was released.
 */
export function heldFlocks(pids: ReadonlySet<number>, dirPrefix: string): HeldLock[] {
  const held: HeldLock[] = [];
  const fdsByPid = new Map<number, Array<{ inode: number; path: string }>>();
  for (const lock of readProcLocks()) {
    if (lock.kind !== 'FLOCK' || lock.blocked || !pids.has(lock.pid)) continue;
    let fds = fdsByPid.get(lock.pid);
    if (fds === undefined) {
      fds = openFilesUnder(lock.pid, dirPrefix);
      fdsByPid.set(lock.pid, fds);
    }
    const file = fds.find((fd) => fd.inode === lock.inode);
    if (file === undefined) continue;
    const deleted = file.path.endsWith(DELETED_SUFFIX);
    held.push({ pid: lock.pid, mode: lock.mode, path: deleted ? file.path.slice(0, -DELETED_SUFFIX.length) : file.path, deleted });
  }
  return held;
}

// The process's open files under `dirPrefix`, with their inodes. An fd closed mid-scan is skipped.
function openFilesUnder(pid: number, dirPrefix: string): Array<{ inode: number; path: string }> {
  const files: Array<{ inode: number; path: string }> = [];
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return files; // the process exited
  }
  for (const fd of fds) {
    try {
      const link = `/proc/${pid}/fd/${fd}`;
      const path = readlinkSync(link);
      if (!path.startsWith(dirPrefix)) continue;
      const inode = statSync(link).ino;
      // The host closes and reuses fds all the time (a losing resume opens and closes a lock
      // file); a path read before a reuse must not name the inode read after it.
      if (readlinkSync(link) === path) files.push({ inode, path });
    } catch {
      // Closed between readdir and here.
    }
  }
  return files;
}
