// What the stored-history worker does with each request: a thread/list page from what it keeps
// of the home (listing-memory.ts), or one thread's rollout read for a request about it. It only
// reads: the mirror into the reference's databases has a worker of its own (src/codex-state/).
// A failure is answered with its text, never thrown at the worker's event loop.
import type { StoredHistoryReply, StoredHistoryRequest } from '../common/stored-history-messages.js';
import type { ListingMemory } from './listing-memory.js';
import { answerStoredRead } from './stored-reads.js';
import { listStoredPage } from './stored-source.js';

/** The answer to `request`; `progress` is called while a long one goes on. */
export async function answerStoredHistory(memory: ListingMemory, request: StoredHistoryRequest, progress?: () => void): Promise<StoredHistoryReply> {
  try {
    if (request.kind !== 'list') return await answerStoredRead(request);
    return await listStoredPage(memory, request.query, progress);
  } catch (error) {
    // Each head is kept or forgotten whole, so what is kept stays true after a failed listing.
    return error instanceof Error ? { kind: 'failed', message: error.message, ...(error.stack ? { stack: error.stack } : {}) } : { kind: 'failed', message: String(error) };
  }
}
