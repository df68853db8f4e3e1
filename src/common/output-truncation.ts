// Middle truncation of long output, byte for byte as the reference's
// codex-rs/utils/string/src/truncate.rs and utils/output-truncation/src/lib.rs: keep the first
// half of the budget and the last half on UTF-8 boundaries, and put a marker saying how much
// went in between ("…N chars truncated…" for a byte budget, "…N tokens truncated…" for a
// token budget, where a token is reckoned as 4 bytes).

/** A budget for text shown to the model: bytes, or approximate tokens. */
export type TruncationPolicy = { readonly mode: 'bytes'; readonly limit: number } | { readonly mode: 'tokens'; readonly limit: number };

/** The reference's default model truncation policy (`TruncationPolicyConfig::bytes(10_000)`). */
export const DEFAULT_TRUNCATION_POLICY: TruncationPolicy = { mode: 'bytes', limit: 10_000 };

const APPROX_BYTES_PER_TOKEN = 4;

export function byteBudget(policy: TruncationPolicy): number {
  return policy.mode === 'bytes' ? policy.limit : policy.limit * APPROX_BYTES_PER_TOKEN;
}

/** Tokens in `text` by the reference's estimate: its UTF-8 length over 4, rounded up. */
export function approxTokenCount(text: string): number {
  return approxTokensOfBytes(Buffer.byteLength(text, 'utf8'));
}

/** Tokens in `byteLength` bytes by the same estimate. */
export function approxTokensOfBytes(byteLength: number): number {
  return Math.ceil(byteLength / APPROX_BYTES_PER_TOKEN);
}

/** Rust's `str::lines().count()`: a final line break does not start another line. */
export function lineCount(text: string): number {
  if (text === '') return 0;
  let breaks = 0;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) breaks += 1;
  return text.endsWith('\n') ? breaks : breaks + 1;
}

/** The reference's `truncate_text`: `content` cut to the policy's budget, marker in the middle. */
export function truncateText(content: string, policy: TruncationPolicy): string {
  if (policy.mode === 'bytes') return truncateWithByteEstimate(content, policy.limit, /*useTokens*/ false);
  if (content === '') return '';
  const budget = policy.limit * APPROX_BYTES_PER_TOKEN;
  if (policy.limit > 0 && Buffer.byteLength(content, 'utf8') <= budget) return content;
  return truncateWithByteEstimate(content, budget, /*useTokens*/ true);
}

/** The reference's `formatted_truncate_text`: the cut text behind a warning and the line count. */
export function formattedTruncateText(content: string, policy: TruncationPolicy): string {
  if (Buffer.byteLength(content, 'utf8') <= byteBudget(policy)) return content;
  const header = `Warning: truncated output (original token count: ${approxTokenCount(content)})\nTotal output lines: ${lineCount(content)}\n\n`;
  return header + truncateText(content, policy);
}

function truncateWithByteEstimate(text: string, maxBytes: number, useTokens: boolean): string {
  if (text === '') return '';
  const totalBytes = Buffer.byteLength(text, 'utf8');
  if (maxBytes === 0) return marker(useTokens, useTokens ? tokensFromBytes(totalBytes) : [...text].length);
  if (totalBytes <= maxBytes) return text;
  const left = Math.floor(maxBytes / 2);
  const { removedChars, prefix, suffix } = splitString(text, totalBytes, left, maxBytes - left);
  return prefix + marker(useTokens, useTokens ? tokensFromBytes(totalBytes - maxBytes) : removedChars) + suffix;
}

/** The characters that end within the first `headBytes`, and those starting in the last `tailBytes`. */
function splitString(text: string, totalBytes: number, headBytes: number, tailBytes: number): { removedChars: number; prefix: string; suffix: string } {
  const tailStartTarget = Math.max(0, totalBytes - tailBytes);
  let byteIndex = 0;
  let unitIndex = 0;
  let prefixEnd = 0;
  let suffixStart = text.length;
  let suffixStarted = false;
  let removedChars = 0;
  for (const char of text) {
    const charEnd = byteIndex + utf8Length(char.codePointAt(0)!);
    if (charEnd <= headBytes) prefixEnd = unitIndex + char.length;
    else if (byteIndex >= tailStartTarget) {
      if (!suffixStarted) {
        suffixStart = unitIndex;
        suffixStarted = true;
      }
    } else removedChars += 1;
    byteIndex = charEnd;
    unitIndex += char.length;
  }
  return { removedChars, prefix: text.slice(0, prefixEnd), suffix: text.slice(Math.max(suffixStart, prefixEnd)) };
}

function utf8Length(codePoint: number): number {
  return codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
}

function tokensFromBytes(bytes: number): number {
  return Math.ceil(bytes / APPROX_BYTES_PER_TOKEN);
}

function marker(useTokens: boolean, removed: number): string {
  return useTokens ? `…${removed} tokens truncated…` : `…${removed} chars truncated…`;
}
