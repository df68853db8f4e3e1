// A thread's preview is its first message ever, whatever was reverted since: codex 0.171.0
// keeps it in its state database, and a thread reverted before every turn it had still shows
// it (test/fixtures/reference-answers/thread-revert.jsonl), though its newest file holds none
// of that history. thread-host reads it from the thread's first file, which a revert never
// changes: the one named by the thread id alone (history-base.ts).
import { basename } from 'node:path';
import { locateRollout, readPrefix } from './history-base.js';
import { HEAD_READ_LIMIT, parseRevertedRolloutFileName } from './rollout-path.js';
import { parseRollout } from './rollout-reader.js';

/**
 * The same on the PostgreSQL store, whose reverted thread keeps its first message ever beside
 * its rows (`first`, null for a thread never reverted: src/common/postgres/reverted-history.ts).
 */
export const storedThreadPreview = (first: string | null, shown: string): string => (first === null || first === '' ? shown : first);

/**
 * The preview of the thread whose rollout is `path`, given the preview its history as read
 * shows (`shown`): for a rollout a revert started, its first file's; else `shown`.
 */
export function threadPreview(path: string, threadId: string, shown: string): string {
  if (parseRevertedRolloutFileName(basename(path)) === null) return shown;
  const first = locateRollout(path, threadId);
  // Only the head, as listings read it: the first message is near the start of the file.
  const text = first === null ? null : readPrefix(first, HEAD_READ_LIMIT);
  const preview = text === null ? '' : parseRollout(text).preview;
  return preview === '' ? shown : preview;
}
