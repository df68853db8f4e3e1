// The text `fleet export` writes for a stored thread. A thread forked or reverted on the store
// holds its whole kept history in its own rows (fork-rollout.ts, revert-rollout.ts): its
// session_meta at the ordinal where the kept history ends, then the kept lines with their own
// ordinals from 0 (their own session_meta among them), then its new lines. The reference reads
// a paginated rollout into its history database by ordinal, skipping every line whose ordinal
// is not above the last it read, so of such a file it would show only the turns after the fork
// or revert (test/interop/fleet-export-interop.test.ts). Written for it, the thread's session_meta takes ordinal 0 and
// the kept history's session_meta lines go (a reader takes the first one only): the ordinals
// then rise through the file, with a gap where each session_meta stood, which the reference
// steps over. Every other thread is written as stored, byte for byte.

const SESSION_META_HEAD = /^\{"timestamp":"[^"]*","ordinal":(\d+),"type":"session_meta",/;
const ORDINAL_HEAD = /^\{"timestamp":"[^"]*","ordinal":(\d+),/;

/** The rollout text of a thread whose rows are `stored` (complete lines, each ending in a newline). */
export function exportedRolloutText(stored: string): string {
  const firstEnd = stored.indexOf('\n');
  const head = SESSION_META_HEAD.exec(firstEnd === -1 ? stored : stored.slice(0, firstEnd));
  if (head === null || head[1] === '0') return stored;
  const first = stored.slice(0, firstEnd).replace(`"ordinal":${head[1]},`, '"ordinal":0,');
  const rest = stored
    .slice(firstEnd + 1)
    .split('\n')
    .filter((line) => line !== '' && !SESSION_META_HEAD.test(line));
  let previous = 0;
  for (const line of rest) {
    const ordinal = ORDINAL_HEAD.exec(line);
    // Not the shape a fork or revert on the store leaves: written as stored rather than guessed at.
    if (ordinal === null || Number(ordinal[1]) <= previous) return stored;
    previous = Number(ordinal[1]);
  }
  return [first, ...rest].join('\n') + '\n';
}
