// Thread ids that tests can name by number: valid UUIDv7 text (a fixed 2026 timestamp), the
// number in the last group, so `fixedThreadId(3)` sorts before `fixedThreadId(12)`.

/** The `n`th fixed thread id (0 ≤ n < 10^12). */
export function fixedThreadId(n: number): string {
  if (!Number.isInteger(n) || n < 0 || n >= 1e12) throw new RangeError(`no fixed thread id for ${n}`);
  return `01a23700-0000-7000-8000-${String(n).padStart(12, '0')}`;
}
