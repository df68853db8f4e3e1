// The one place the worker asks where a thread's history lives: past this, the actor only
// talks to the backend it was given (history-backend.ts).
import type { ActorHistory } from '../../common/actor-messages.js';
import type { BackendContext } from './backend-context.js';
import { EphemeralBackend } from './ephemeral-backend.js';
import { FilesBackend } from './files/files-backend.js';
import type { HistoryBackend } from './history-backend.js';
import { PostgresBackend } from './postgres/postgres-backend.js';

/** The backend of `history` (ActorInit.history); null opens an ephemeral thread's, which writes nothing. */
export function openHistoryBackend(history: ActorHistory | null, context: BackendContext): HistoryBackend {
  if (history === null) return new EphemeralBackend(context.threadId, context.serializeHistory);
  if (history.store === 'files') return new FilesBackend(history.path, context);
  return new PostgresBackend(history, context);
}
