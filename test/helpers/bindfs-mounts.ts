// The network-home testbed: one directory mounted twice through FUSE with bindfs, as two
// machines see one NFS home. flock(2) taken through one mount is invisible through the other
// (each mount has its own inodes in the kernel), while mkdir stays atomic, because both mounts
// pass it to the one real directory. Needs the bindfs binary, /dev/fuse and the right to mount.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Two views of one directory; `unmount` is idempotent and removes everything. */
export interface TwoMounts {
  readonly source: string;
  readonly a: string;
  readonly b: string;
  unmount(): void;
}

/**
 * Why the testbed cannot run here, or null when it can: checked for real, by mounting a
 * scratch directory and seeing a file through the mount.
 */
export function fuseUnavailableReason(): string | null {
  if (spawnSync('bindfs', ['--version'], { encoding: 'utf8' }).error) return 'the bindfs binary is not installed (Debian package `bindfs`)';
  if (!existsSync('/dev/fuse')) return '/dev/fuse does not exist (no FUSE in this kernel or container)';
  let mounts: TwoMounts | null = null;
  try {
    mounts = mountTwice();
    writeFileSync(join(mounts.source, 'probe'), 'x');
    if (!existsSync(join(mounts.b, 'probe'))) return 'bindfs mounted, but a file in the source is not visible through the mount';
    return null;
  } catch (error) {
    return `bindfs could not mount: ${(error as Error).message.split('\n')[0]}`;
  } finally {
    mounts?.unmount();
  }
}

/** Mounts a fresh directory at two mount points. Throws if either mount fails. */
export function mountTwice(): TwoMounts {
  const root = mkdtempSync(join(tmpdir(), 'thread-host-bindfs-'));
  const source = join(root, 'source');
  const a = join(root, 'a');
  const b = join(root, 'b');
  for (const dir of [source, a, b]) mkdirSync(dir);
  const mounted: string[] = [];
  const unmount = () => {
    for (const point of mounted.splice(0)) spawnSync('fusermount', ['-u', '-z', point]);
    rmSync(root, { recursive: true, force: true });
  };
  try {
    for (const point of [a, b]) {
      execFileSync('bindfs', ['--no-allow-other', source, point], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000 });
      mounted.push(point);
    }
  } catch (error) {
    unmount();
    throw error;
  }
  return { source, a, b, unmount };
}
