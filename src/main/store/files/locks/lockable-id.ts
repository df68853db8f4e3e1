// Thread ids become lock file and directory names in every backend.

/**
 * Refuses anything that could escape the lock directory or name the coordination lock (edge
 * validation should already have ensured a UUID; this is the last line, not the first).
 */
export function assertLockableId(threadId: string): void {
  if (threadId === '' || threadId.startsWith('.') || /[/\\\0]/.test(threadId)) {
    throw new TypeError(`not a lockable thread id: ${JSON.stringify(threadId)}`);
  }
}
