// What the stored-history worker does with each request: a thread/list page from the heads it
// keeps, or one thread's rollout read for a request about it. A failure is answered with its
// text, never thrown at the worker's event loop.
import type { StoredHistoryReply, StoredHistoryRequest } from '../common/stored-history-messages.js';
import type { RolloutHeads } from './rollout-heads.js';
import { answerStoredRead } from './stored-reads.js';
import { listThreadPage } from './thread-page.js';

/** The answer to `request`; `progress` is called while a long one goes on. */
export function answerStoredHistory(heads: RolloutHeads, request: StoredHistoryRequest, progress?: () => void): StoredHistoryReply {
  try {
    return request.kind === 'list' ? listThreadPage(heads, request.query, progress) : answerStoredRead(request);
  } catch (error) {
    // Each head is kept or forgotten whole, so what is kept stays true after a failed listing.
    return error instanceof Error ? { kind: 'failed', message: error.message, ...(error.stack ? { stack: error.stack } : {}) } : { kind: 'failed', message: String(error) };
  }
}
