// Whether bubblewrap works on this machine, asked once. A sandboxed command on a machine where
// it does not is refused, never run without the sandbox: the probe's answer is the only way to
// an `unavailable` refusal, and nothing downgrades a policy.
import { execFile } from 'node:child_process';

/** What the probe found: bwrap usable (with or without a fresh /proc), or why not. */
export type SandboxAvailability =
  | { readonly kind: 'available'; readonly bwrapPath: string; readonly mountProc: boolean }
  | { readonly kind: 'unavailable'; readonly bwrapPath: string; readonly reason: string };

// Generous: the probe is one tiny process, but a loaded CI machine can be slow to fork.
const PROBE_TIMEOUT_MS = 10_000;
// The same namespaces and mounts every sandboxed command asks for, minus the writable roots.
const PROBE_ARGS = ['--new-session', '--die-with-parent', '--ro-bind', '/', '/', '--dev', '/dev', '--unshare-user', '--unshare-pid', '--unshare-net'];

const probes = new Map<string, Promise<SandboxAvailability>>();

/** The cached answer for `bwrapPath` (first call runs the probe; later calls share it). */
export function probeSandbox(bwrapPath = 'bwrap'): Promise<SandboxAvailability> {
  let probe = probes.get(bwrapPath);
  if (probe === undefined) {
    probe = runProbe(bwrapPath);
    probes.set(bwrapPath, probe);
  }
  return probe;
}

async function runProbe(bwrapPath: string): Promise<SandboxAvailability> {
  const withProc = await tryBwrap(bwrapPath, [...PROBE_ARGS, '--proc', '/proc', '--', 'true']);
  if (withProc === null) return { kind: 'available', bwrapPath, mountProc: true };
  // Some containers refuse a fresh /proc while allowing the rest; the reference retries
  // without it (linux_run_main.rs `preflight_proc_mount_support`).
  if (isProcMountFailure(withProc)) {
    const withoutProc = await tryBwrap(bwrapPath, [...PROBE_ARGS, '--', 'true']);
    if (withoutProc === null) return { kind: 'available', bwrapPath, mountProc: false };
    return { kind: 'unavailable', bwrapPath, reason: withoutProc };
  }
  return { kind: 'unavailable', bwrapPath, reason: withProc };
}

/** Null when bwrap ran `true` successfully, else what went wrong. */
function tryBwrap(bwrapPath: string, args: string[]): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(bwrapPath, args, { timeout: PROBE_TIMEOUT_MS, encoding: 'utf8' }, (error, _stdout, stderr) => {
      if (error === null) resolve(null);
      else resolve(stderr.trim() !== '' ? stderr.trim() : error.message);
    });
  });
}

// The reference also requires "/newroot/proc" in the text; bubblewrap 0.12 no longer prints
// it, so only the message and the errno are matched here.
function isProcMountFailure(stderr: string): boolean {
  return (
    stderr.includes("Can't mount proc") &&
    ['Invalid argument', 'Operation not permitted', 'Permission denied'].some((text) => stderr.includes(text))
  );
}
