// What an actor is told of where it writes: the store's location of the thread's history, with
// the fencing the PostgreSQL store's acquisition handed out (every append there is conditional
// on it: src/common/postgres/fenced-append.ts). A rollout file needs none: the writer lock is
// the file's.
import type { ActorHistory } from '../../common/actor-messages.js';
import { internalError } from '../../common/errors.js';
import type { HistoryLocation } from '../../common/history-location.js';
import type { WriterLock } from './writer-lock-backend.js';

export function actorHistoryOf(location: HistoryLocation | null, fencing: WriterLock['fencing'] | null): ActorHistory | null {
  if (location === null || location.store === 'files') return location;
  if (fencing == null) throw internalError('a thread of the PostgreSQL thread store was loaded without its epoch');
  return { ...location, epoch: fencing.epoch, nextLine: fencing.nextLine };
}
