// The cursors of paged history reads, spelled as the reference spells them, so a client can
// page with either server. Legacy history has no line positions, so its turn cursor names the
// anchor turn by id; paginated history points at a record's `ordinal` and is bound to one thread
// and one scope (turns, or items in creation order).
//
//   legacy     {"turnId":"…","includeAnchor":false}
//   paginated  {"requestedThreadId":"…","rolloutOrdinal":41,"includeAnchor":false,"scope":{"kind":"turns"}}
import { invalidCursor } from '../errors.js';
import { threadIdOf } from '../thread-id.js';

/** What a paginated cursor pages through. */
export type CursorScope = 'turns' | 'itemsByCreatedAtOrdinal';

/** Where a page starts: the anchor, and whether the anchor itself is on the page. */
export type CursorAnchor = { kind: 'turnId'; turnId: string; includeAnchor: boolean } | { kind: 'ordinal'; ordinal: number; includeAnchor: boolean };

export function legacyTurnCursor(turnId: string, includeAnchor: boolean): string {
  return JSON.stringify({ turnId, includeAnchor });
}

export function paginatedCursor(threadId: string, ordinal: number, includeAnchor: boolean, scope: CursorScope): string {
  return JSON.stringify({ requestedThreadId: threadId, rolloutOrdinal: ordinal, includeAnchor, scope: { kind: scope } });
}

/** Reads a legacy turn cursor; anything else is `invalid cursor: <cursor>`. */
export function parseLegacyTurnCursor(cursor: string): CursorAnchor {
  const value = parseObject(cursor);
  if (value === null || typeof value.turnId !== 'string' || typeof value.includeAnchor !== 'boolean') throw invalidCursor(cursor);
  return { kind: 'turnId', turnId: value.turnId, includeAnchor: value.includeAnchor };
}

/** Reads a paginated cursor, which must name this thread and this scope. */
export function parsePaginatedCursor(cursor: string, threadId: string, scope: CursorScope): CursorAnchor {
  const value = parseObject(cursor);
  const ordinal = value?.rolloutOrdinal;
  const kind = (value?.scope as { kind?: unknown } | null | undefined)?.kind;
  if (
    value === null ||
    typeof value.requestedThreadId !== 'string' ||
    threadIdOf(value.requestedThreadId) !== threadIdOf(threadId) ||
    typeof ordinal !== 'number' ||
    !Number.isSafeInteger(ordinal) ||
    ordinal < 0 ||
    typeof value.includeAnchor !== 'boolean' ||
    kind !== scope
  ) {
    throw invalidCursor(cursor);
  }
  return { kind: 'ordinal', ordinal, includeAnchor: value.includeAnchor };
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
