// What the codex-state worker (workers/codex-state.ts) does with each job: a change mirrored
// into the reference's state and queue databases, or which queued rows are still in the latter
// (codex-state-writer.ts), on the worker's one writer, whose connections last as long as the
// worker. A failure is answered with its text, never thrown at the worker's event loop.
import type { CodexStateReply, CodexStateRequest } from '../common/codex-db/codex-state-changes.js';
import type { CodexStateWriter } from './codex-state-writer.js';

/** The answer to `request`, from `writer`. */
export async function answerCodexState(writer: CodexStateWriter, request: CodexStateRequest): Promise<CodexStateReply> {
  try {
    if (request.kind === 'mirrorCodexState') return await writer.apply(request);
    return await writer.queuedRows(request);
  } catch (error) {
    return error instanceof Error ? { kind: 'failed', message: error.message, ...(error.stack ? { stack: error.stack } : {}) } : { kind: 'failed', message: String(error) };
  }
}
