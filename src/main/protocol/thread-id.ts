// Thread ids arrive as strings and are checked at the edge with the reference's texts:
// "invalid thread id: …" for most methods, "invalid session id: …" for thread/resume. What
// passes is a ThreadId: parseUuid answers the lowercase hyphenated form, so nothing past this
// edge lowercases a client's id again.
import { invalidRequest } from '../../common/errors.js';
import type { ThreadId } from '../../common/thread-id.js';
import { parseUuid, uuidv7 } from './uuid.js';

export function requireThreadId(raw: string, label: 'thread id' | 'session id' = 'thread id'): ThreadId {
  const parsed = parseThreadId(raw);
  if (!parsed.ok) throw invalidRequest(`invalid ${label}: ${parsed.error}`);
  return parsed.value;
}

/** `raw` as a ThreadId, or the uuid crate's error, for methods that word the refusal otherwise. */
export function parseThreadId(raw: string): { ok: true; value: ThreadId } | { ok: false; error: string } {
  // parseUuid answers the lowercase hyphenated form: the one form of a ThreadId.
  return parseUuid(raw) as { ok: true; value: ThreadId } | { ok: false; error: string };
}

/** A new thread's id: a UUIDv7, minted in the one form. */
export const newThreadId = (nowMs: number): ThreadId => uuidv7(nowMs) as ThreadId;
