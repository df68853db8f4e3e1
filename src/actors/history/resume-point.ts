// Where the appends of an actor go on in a history it read back: shared by the stores that
// write, so both refuse alike a history this host cannot continue.
import type { ParsedRollout } from '../../common/rollout/rollout-reader.js';
import { threadIdOf } from '../../common/thread-id.js';
import type { ResumedHistory } from './history-backend.js';

/** `rollout` (the history of `threadId`, named `name`) continued; throws without touching it when it cannot be. */
export function resumePoint(rollout: ParsedRollout, name: string, threadId: string): ResumedHistory {
  const point = rollout.appendPoint;
  if (point.kind === 'unwritable') throw new Error(`cannot continue rollout ${name}: ${point.reason}`);
  if (rollout.threadId !== null && threadIdOf(rollout.threadId) !== threadIdOf(threadId)) {
    throw new Error(`cannot continue rollout ${name}: its session_meta records thread ${rollout.threadId}`);
  }
  return { rollout, historyMode: point.kind, nextOrdinal: point.kind === 'paginated' ? point.nextOrdinal : 0 };
}
