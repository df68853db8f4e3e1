// The text of the bench's huge lines (huge-line scenario, line-parse-cost micro-benchmark).

// What a pasted file looks like to a parser: quotes and newlines to unescape, non-ASCII to
// decode (2-, 3- and 4-byte UTF-8), so the line costs what a real one does, not a run of 'x'.
const PASTE = 'const label = "café — ✓";\n\tif (ok) return `🚀 ${label}`; // ünïcode\n';

/** `bytes` of UTF-8 text made of PASTE. */
export function pastedText(bytes: number): string {
  const unit = Buffer.byteLength(PASTE);
  return PASTE.repeat(Math.max(1, Math.round(bytes / unit)));
}
