// `thread/read`, `thread/turns/list` and `thread/items/list` of a thread that is not loaded:
// its whole rollout read and replayed here, in the stored-history worker, and the result
// serialized here too. A long thread's rollout is tens of megabytes; read, parsed and
// stringified on the main thread, every other client waited for all of it, request by request
// (bench case `stored-read`). The main thread splices the bytes into its reply.
import { ownedUtf8 } from '../common/encoded-content.js';
import { RpcError } from '../common/errors.js';
import { itemsPage, sourceWithPositions, turnsPage, type HistorySource } from '../common/rollout/history-pages.js';
import { fullTurns } from '../common/rollout/history-view.js';
import { historyModeOf, parseRollout, type ParsedRollout } from '../common/rollout/rollout-reader.js';
import type { StoredHistoryReply, StoredRead } from '../common/stored-history-messages.js';
import { storedThreadView } from '../common/thread-object.js';
import { rolloutHead } from './head-reads.js';
import { pathOf } from '../common/history-location.js';
import { readPreview, storedText } from './stored-source.js';

export async function answerStoredRead(request: StoredRead): Promise<StoredHistoryReply> {
  const stored = await storedText(request.location, request.threadId);
  if (stored === null) return { kind: 'noRollout' };
  const parsed = parseRollout(stored.text);
  if (parsed.meta === null) return { kind: 'noRollout' };
  const historyMode = historyModeOf(parsed.meta);
  const source = sourceWithPositions(request.threadId, historyMode, parsed.turns, parsed.positions);
  let result: unknown;
  try {
    result = resultOf(request, parsed, source, stored.firstPreview);
  } catch (error) {
    if (error instanceof RpcError) return { kind: 'rpcError', ...error.toJSON() };
    throw error;
  }
  return { kind: 'answer', json: ownedUtf8(JSON.stringify(result)), historyMode };
}

function resultOf(request: StoredRead, parsed: ParsedRollout, source: HistorySource, firstPreview: string | null): unknown {
  if (request.kind === 'turns') return turnsPage(source, request.page);
  if (request.kind === 'items') return itemsPage(source, request.page);
  const summary = { ...rolloutHead(request.threadId, pathOf(request.location), parsed, parsed.meta!), updatedAtMs: parsed.updatedAtMs };
  summary.preview = readPreview(request.location, request.threadId, firstPreview, summary.preview);
  const thread = storedThreadView(summary, request.includeTurns ? fullTurns(source.mode, parsed.turns) : [], request.namedModelProvider);
  // A read names a fork's source, as the reference's does (its listings do not).
  thread.forkedFromId = parsed.meta!.forkedFromId;
  // The name and metadata are the host's to know (read at its start); it sends them along.
  if (request.threadName !== null) thread.name = request.threadName;
  if (request.metadata !== null) Object.assign(thread, request.metadata);
  return request.readState === undefined ? { thread } : { thread, readState: request.readState };
}
