// The network-home testbed: one directory mounted twice through FUSE with bindfs, as two
// machines see one NFS home. flock(2) taken through one mount is invisible through the other
// (each mount has its own inodes in the kernel), while mkdir stays atomic, because both mounts
// pass it to the one real directory. Needs the bindfs binary, /dev/fuse and the right to mount.
//
// THREAD_HOST_TEST_TWO_MOUNTS=<a>:<b> runs the same suite on two real mounts of one network
// export instead (NFS mounted twice with `-o nosharecache`, so each has its own caches as two
// machines would): each testbed is a fresh directory under <a>, seen as the same name under <b>.
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
  if (givenMounts() !== null) return givenMountsUnusableReason();
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
  const given = givenMounts();
  if (given !== null) return onGivenMounts(given);
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

/** THREAD_HOST_TEST_TWO_MOUNTS split in two, or null when unset. */
function givenMounts(): [string, string] | null {
  const value = process.env.THREAD_HOST_TEST_TWO_MOUNTS;
  if (!value) return null;
  const [a, b, ...rest] = value.split(':');
  if (!a || !b || rest.length > 0) throw new Error(`THREAD_HOST_TEST_TWO_MOUNTS: expected <mount a>:<mount b>, got ${JSON.stringify(value)}`);
  return [a, b];
}

function givenMountsUnusableReason(): string | null {
  let mounts: TwoMounts | null = null;
  try {
    mounts = mountTwice();
    writeFileSync(join(mounts.a, 'probe'), 'x');
    return existsSync(join(mounts.b, 'probe')) ? null : 'a file written through the first of THREAD_HOST_TEST_TWO_MOUNTS is not visible through the second';
  } catch (error) {
    return `THREAD_HOST_TEST_TWO_MOUNTS is not usable: ${(error as Error).message.split('\n')[0]}`;
  } finally {
    mounts?.unmount();
  }
}

// Nothing is mounted: a fresh directory on the given mounts stands for one testbed.
function onGivenMounts([mountA, mountB]: [string, string]): TwoMounts {
  const name = mkdtempSync(join(mountA, 'thread-host-two-mounts-')).slice(mountA.length + 1);
  const a = join(mountA, name);
  return { source: a, a, b: join(mountB, name), unmount: () => rmSync(a, { recursive: true, force: true }) };
}
