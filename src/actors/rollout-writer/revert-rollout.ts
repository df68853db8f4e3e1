// The first line of the file a `thread/revert` starts, as codex 0.171.0 writes it
// (test/fixtures/reference-answers/thread-revert.jsonl; history/files/revert-file.ts writes it): the thread's rollout is never cut or
// rewritten; a new file, rollout-<time>-<thread>_<file id>.jsonl, begins with a session_meta
// whose history base (history-base.ts) is the thread's history before the reverted turn: the
// previous file's lines up to where that turn's task_started starts, at the ordinal that line
// had, following the previous file's own base when the turn lies in it. Reverting before the
// thread's first turn keeps nothing: the new file starts at ordinal 0 with no base.
//
// The previous file is read whole, but only its complete lines, and never under a lock other
// than the thread's own writer lock, which the host holds for this actor.
//
// On the PostgreSQL store (`storedRevertLines`) the thread's rows are replaced, by its owner, with
// what the files store's reader sees of the new file: its session_meta, then the kept lines
// (src/common/postgres/reverted-history.ts).
import type { RevertRequest } from '../../common/actor-messages.js';
import { forkRefused } from '../../common/errors.js';
import { parseLine } from '../../common/rollout/rollout-json.js';
import { historyModeOf, parseRollout } from '../../common/rollout/rollout-reader.js';
import { splitLines, turnStartIndex } from './fork-rollout.js';
import { stampOrdinal } from './paginated-format.js';
import { sessionMeta, type SessionMetaInput } from './rollout-lines.js';

/** The thread's whole new history in the PostgreSQL store, from its rows before the revert (`previousText`). */
export function storedRevertLines(previousText: string, request: RevertRequest, meta: SessionMetaInput): string[] {
  const cut = revertCut(request, previousText);
  const first = sessionMeta({ ...meta, createdAtMs: request.atMs }, request.atMs, 'paginated');
  return [stampOrdinal(first, cut?.ordinal ?? 0), ...(cut?.kept ?? [])];
}

/** The preview the thread's rows show before a revert replaces them (what the files store keeps in the first file). */
export const previewBeforeRevert = (previousText: string): string => parseRollout(previousText).preview;

/**
 * Where the kept history (`expanded`: the thread's history as read) ends: the ordinal of the line
 * where `beforeTurnId` starts, and the lines before it; null when no turn comes before it.
 */
export function revertCut(request: RevertRequest, expanded: string): { ordinal: number; kept: string[] } | null {
  const { beforeTurnId } = request;
  const parsed = parseRollout(expanded);
  if (parsed.meta === null || historyModeOf(parsed.meta) !== 'paginated') throw forkRefused('thread/revert only supports paginated threads');
  const index = parsed.turns.findIndex((turn) => turn.id === beforeTurnId);
  if (index === -1) throw forkRefused(`turn not found: ${beforeTurnId}`);
  if (index === 0) return null;
  const lines = splitLines(expanded);
  const cut = turnStartIndex(lines, beforeTurnId, false);
  const ordinal = parseLine(lines[cut] ?? '')?.ordinal ?? null;
  if (ordinal === null) throw new Error(`the line where turn ${beforeTurnId} starts has no ordinal`);
  return { ordinal, kept: lines.slice(0, cut) };
}
