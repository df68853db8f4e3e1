// Rust's `io::Error` Display, which the reference prints wherever a file or a socket failed:
// "<strerror> (os error <n>)", e.g. "No such file or directory (os error 2)". One table for
// the startup errors, the patch tool, the images a turn reads and a command's failed spawn.
import { constants } from 'node:os';

// glibc's strerror texts for the errors a path, a write or a bind can meet.
const STRERROR: Readonly<Record<string, string>> = {
  ENOENT: 'No such file or directory',
  EACCES: 'Permission denied',
  EISDIR: 'Is a directory',
  ENOTDIR: 'Not a directory',
  EPERM: 'Operation not permitted',
  EEXIST: 'File exists',
  ENOSPC: 'No space left on device',
  EROFS: 'Read-only file system',
  EADDRINUSE: 'Address in use',
  EADDRNOTAVAIL: 'Address not available',
  ELOOP: 'Too many levels of symbolic links',
  ENAMETOOLONG: 'File name too long',
  ENOEXEC: 'Exec format error',
};

/** A Node system error as Rust displays it; anything else by its message. */
export function ioErrorText(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (typeof code === 'string') {
    const errno = (constants.errno as Readonly<Record<string, number>>)[code] ?? Math.abs((error as NodeJS.ErrnoException).errno ?? 0);
    if (errno > 0) return `${STRERROR[code] ?? code} (os error ${errno})`;
  }
  return error instanceof Error ? error.message : String(error);
}
