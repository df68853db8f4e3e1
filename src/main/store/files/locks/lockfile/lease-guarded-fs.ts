// The fs proper-lockfile's heartbeat refreshes a lock directory through, guarded by the lock's
// lease. The heartbeat stats the directory, compares its mtime with the one it last set, then
// calls utimes *by path*. Either reply can arrive arbitrarily late (a host paused between the
// stat and its callback, a network stat answered after the stale time): a stat answered before
// another host's takeover but delivered after it still shows our mtime, and utimes by path then
// refreshes the NEW owner's directory. Were the lease then extended, the old owner would go on
// writing a thread another host now owns. So a refresh must pass the lease twice:
//
//   before utimes is issued   the lease must still run; a lapsed lease is never renewed: the
//                             lock is reported compromised and nothing is sent to the server
//   when utimes completes     only a refresh completed before the lease's end extends it (from
//                             when it was issued); one completed later extends nothing, and the
//                             lock is compromised too: it may have refreshed another's directory
//
// A lease that ran is proof enough: nobody judges the directory stale before the lease's end
// plus one heartbeat (see lock-dir.ts), so a refresh completed in time landed on our own.
import type nodeFs from 'node:fs';
import { endLease, extendLease, leaseExpiry, type WriterLease } from '../../../../../common/writer-lease.js';

type UtimesCallback = (error: NodeJS.ErrnoException | null) => void;

/** How far a successful refresh issued at `issuedAtMs` pushes the lease. */
export type LeaseFor = (issuedAtMs: number) => number;

/**
 * `fs` whose `utimes` (only proper-lockfile's heartbeat calls it) is guarded by `lease`. A
 * refused or late refresh ends the lease synchronously, then fails the heartbeat in the one way
 * proper-lockfile always treats as a compromise, so that it stops the heartbeat, forgets the
 * directory (its exit hook would otherwise remove the new owner's) and calls onCompromised.
 */
export function leaseGuardedFs(fs: typeof nodeFs, lease: WriterLease, leaseFor: LeaseFor, now: () => number = Date.now): typeof nodeFs {
  const utimes = (path: string, atime: Date, mtime: Date, callback: UtimesCallback): void => {
    const issuedAtMs = now();
    const expiry = leaseExpiry(lease);
    if (issuedAtMs >= expiry) {
      endLease(lease);
      callback(compromise(expiry === 0 ? `the lock on ${path} was already given up` : `the writer lease of ${path} ran out at ${iso(expiry)}, before its heartbeat could refresh it; another host may own it now`));
      return;
    }
    fs.utimes(path, atime, mtime, (error) => {
      if (error !== null) return callback(error);
      const completedAtMs = now();
      const end = leaseExpiry(lease);
      if (completedAtMs >= end) {
        endLease(lease);
        return callback(compromise(`the heartbeat's refresh of ${path} completed at ${iso(completedAtMs)}, after its writer lease ran out at ${iso(end)}; another host may own it now`));
      }
      extendLease(lease, leaseFor(issuedAtMs));
      callback(null);
    });
  };
  return { ...fs, utimes } as typeof nodeFs;
}

// proper-lockfile ends the lock on an ENOENT from the refresh whatever the timing (any other
// error is retried until its own threshold) and replaces the code with ECOMPROMISED before
// onCompromised sees it; only the message reaches the host.
function compromise(message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code: 'ENOENT' });
}

function iso(epochMs: number): string {
  return new Date(epochMs).toISOString();
}
