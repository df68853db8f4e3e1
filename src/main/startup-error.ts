// A problem that stops `app-server` before it serves: printed as `Error: <message>` with exit
// code 1, as the reference's anyhow main prints its start-up errors (a busy port, a bad auth
// flag combination, an unreadable secret, a non-loopback listener without auth).

/** Stops the process at start with the reference's message and exit code 1. */
export class StartupError extends Error {}

/** Rust's `io::Error` display for a Node system error: `No such file or directory (os error 2)`. */
export function ioErrorText(error: unknown): string {
  const errno = (error as NodeJS.ErrnoException).errno;
  const code = (error as NodeJS.ErrnoException).code;
  if (typeof errno !== 'number' || code === undefined) return error instanceof Error ? error.message : String(error);
  const text = IO_ERROR_TEXTS[code] ?? code;
  return `${text} (os error ${Math.abs(errno)})`;
}

// glibc's strerror texts, which Rust prints, for the errors a path or a bind can meet.
const IO_ERROR_TEXTS: Record<string, string> = {
  ENOENT: 'No such file or directory',
  EACCES: 'Permission denied',
  EISDIR: 'Is a directory',
  ENOTDIR: 'Not a directory',
  EADDRINUSE: 'Address in use',
  EADDRNOTAVAIL: 'Address not available',
  ELOOP: 'Too many levels of symbolic links',
  ENAMETOOLONG: 'File name too long',
  EPERM: 'Operation not permitted',
};
