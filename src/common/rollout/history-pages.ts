// Paged reads of a thread's history (`thread/turns/list`, `thread/items/list`), the same for a
// loaded thread's mirror and a rollout read from disk. Pages follow the reference: at most 100,
// 25 by default, 0 taken as 1; `nextCursor` points past the last element and is null when
// nothing is left that way; `backwardsCursor` points at the first element, anchor included, for
// paging back with the opposite direction.
import { turnsView } from './history-view.js';
import type { HistoryMode, TurnPosition } from './rollout-reader.js';
import type { ThreadItem, Turn } from '../wire-types.js';
import { invalidCursor, invalidParams, notSupportedYet } from '../errors.js';
import {
  legacyTurnCursor,
  paginatedCursor,
  parseLegacyTurnCursor,
  parsePaginatedCursor,
  type CursorAnchor,
  type CursorScope,
} from './history-cursors.js';

const DEFAULT_PAGE_SIZE = 25;
const MAX_PAGE_SIZE = 100;

/** A thread's history as recorded: turns, where they sit, and the format. */
export interface HistorySource {
  threadId: string;
  mode: HistoryMode;
  turns: readonly Turn[];
  /** Where turn `i`'s record sits in the rollout (its ordinal); null where not known. */
  turnOrdinal(i: number): number | null;
  /** Where item `j` of turn `i` sits; null where not known. */
  itemOrdinal(i: number, j: number): number | null;
}

/** A history whose positions were read with its turns (from a rollout), aligned with them. */
export function sourceWithPositions(threadId: string, mode: HistoryMode, turns: Turn[], positions: readonly TurnPosition[]): HistorySource {
  return { threadId, ...positionedTurns(mode, turns, positions) };
}

/** The same, for a history not yet known by its thread (lastOrdinals needs no id). */
export function positionedTurns(mode: HistoryMode, turns: Turn[], positions: readonly TurnPosition[]): Omit<HistorySource, 'threadId'> {
  return {
    mode,
    turns,
    turnOrdinal: (i) => positions[i]?.ordinal ?? null,
    itemOrdinal: (i, j) => positions[i]?.items[j] ?? null,
  };
}

/** The ordinals of the last turn record and the last item that have one (null: none has). */
export interface LastOrdinals {
  turn: number | null;
  item: number | null;
}

/**
 * Where a client starts paging a paginated thread back from: the ordinal of the last turn
 * record and of the last item that have one; legacy history has no ordinals. Scanned from the
 * end, one position at a time, so a long thread's positions are not all looked up for two.
 */
export function lastOrdinals(source: Omit<HistorySource, 'threadId'>): LastOrdinals {
  let turn: number | null = null;
  let item: number | null = null;
  if (source.mode === 'legacy') return { turn, item };
  for (let i = source.turns.length - 1; i >= 0 && (turn === null || item === null); i -= 1) {
    turn ??= source.turnOrdinal(i);
    for (let j = source.turns[i]!.items.length - 1; j >= 0 && item === null; j -= 1) item = source.itemOrdinal(i, j);
  }
  return { turn, item };
}

export type SortDirection = 'asc' | 'desc';
export type TurnItemsView = 'notLoaded' | 'summary' | 'full';

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
  backwardsCursor: string | null;
}

/** `ThreadItemEntry`: an item with the turn it belongs to. */
export interface ItemEntry {
  turnId: string;
  item: ThreadItem;
  startedAtMs: number | null;
  completedAtMs: number | null;
}

/** One element of the sequence being paged, with what anchors a cursor at it. */
interface Keyed<T> {
  value: T;
  /** Legacy turns are anchored by id. */
  turnId: string;
  /** Paginated elements are anchored by their record's ordinal. */
  ordinal: number | null;
}

export function pageSize(limit: number | null): number {
  return Math.min(Math.max(limit ?? DEFAULT_PAGE_SIZE, 1), MAX_PAGE_SIZE);
}

/** What `thread/turns/list` asks for. */
export interface TurnsPageRequest {
  cursor: string | null;
  limit: number | null;
  sortDirection: SortDirection | null;
  itemsView: TurnItemsView | null;
}

/** What `thread/items/list` asks for. */
export interface ItemsPageRequest {
  turnId: string | null;
  cursor: string | { itemId: string } | null;
  limit: number | null;
  sortDirection: SortDirection | null;
}

export function turnsPage(source: HistorySource, request: TurnsPageRequest): Page<Turn> {
  const itemsView = request.itemsView ?? 'summary';
  // Paged by index: only the page's turns are shown (copied, their items numbered and cut to
  // the view), not every turn of a long thread for each page of 25.
  const keyed = source.turns.map((turn, i) => ({ value: i, turnId: turn.id, ordinal: source.turnOrdinal(i) }));
  if (keyed.length === 0) return { data: [], nextCursor: null, backwardsCursor: null };
  const paginated = source.mode === 'paginated';
  const anchor =
    request.cursor === null ? null : paginated ? parsePaginatedCursor(request.cursor, source.threadId, 'turns') : parseLegacyTurnCursor(request.cursor);
  const cursorAt = (element: Keyed<number>, includeAnchor: boolean) =>
    paginated ? paginatedCursor(source.threadId, element.ordinal ?? 0, includeAnchor, 'turns') : legacyTurnCursor(element.turnId, includeAnchor);
  const indices = page(keyed, anchor, request.sortDirection ?? 'desc', pageSize(request.limit), cursorAt);
  const shown = turnsView(source.mode, source.turns, indices.data);
  return { ...indices, data: shown.map((turn) => withItemsView(turn, itemsView)) };
}

/**
 * Items of a paginated thread, oldest first by default; `turnId` keeps one turn's, and an item
 * anchor (`{itemId}`, which needs `turnId`) starts after (asc) or before (desc) that item.
 * Legacy history has no item positions, so the reference does not page its items.
 */
export function itemsPage(source: HistorySource | null, request: ItemsPageRequest): Page<ItemEntry> {
  if (source === null || source.mode !== 'paginated') throw notSupportedYet('thread/items/list');
  const keyed: Keyed<ItemEntry>[] = [];
  source.turns.forEach((turn, i) => {
    if (request.turnId !== null && turn.id !== request.turnId) return;
    turn.items.forEach((item, j) => {
      const entry = { turnId: turn.id, item, startedAtMs: item.startedAtMs, completedAtMs: item.completedAtMs };
      keyed.push({ value: entry, turnId: turn.id, ordinal: source.itemOrdinal(i, j) });
    });
  });
  let anchor: CursorAnchor | null = null;
  if (typeof request.cursor === 'string') anchor = parsePaginatedCursor(request.cursor, source.threadId, 'itemsByCreatedAtOrdinal');
  else if (request.cursor !== null) anchor = itemAnchor(keyed, request.cursor.itemId);
  if (keyed.length === 0) return { data: [], nextCursor: null, backwardsCursor: null };
  const scope: CursorScope = 'itemsByCreatedAtOrdinal';
  return page(keyed, anchor, request.sortDirection ?? 'asc', pageSize(request.limit), (element, includeAnchor) =>
    paginatedCursor(source.threadId, element.ordinal ?? 0, includeAnchor, scope),
  );
}

/** Checks made before the history is looked up, as the reference makes them. */
export function checkItemsRequest(request: { turnId: string | null; cursor: string | { itemId: string } | null }): void {
  if (request.cursor !== null && typeof request.cursor !== 'string' && (request.turnId === null || request.turnId === '')) {
    throw invalidParams('turnId is required when cursor is an item anchor');
  }
}

function itemAnchor(keyed: Keyed<ItemEntry>[], itemId: string): CursorAnchor {
  const found = keyed.find((element) => element.value.item.id === itemId);
  if (found === undefined || found.ordinal === null) throw invalidParams('cursor.itemId does not identify an item in the requested history scope');
  return { kind: 'ordinal', ordinal: found.ordinal, includeAnchor: false };
}

function page<T>(
  keyed: Keyed<T>[],
  anchor: CursorAnchor | null,
  direction: SortDirection,
  size: number,
  cursorAt: (element: Keyed<T>, includeAnchor: boolean) => string,
): Page<T> {
  let ordered = direction === 'asc' ? keyed : [...keyed].reverse();
  if (anchor !== null) ordered = ordered.slice(startAfter(ordered, anchor, direction));
  const more = ordered.length > size;
  const data = ordered.slice(0, size);
  const first = data[0];
  const last = data[data.length - 1];
  return {
    data: data.map((element) => element.value),
    nextCursor: more && last !== undefined ? cursorAt(last, false) : null,
    backwardsCursor: first === undefined ? null : cursorAt(first, true),
  };
}

// Index in `ordered` of the first element the page keeps.
function startAfter<T>(ordered: Keyed<T>[], anchor: CursorAnchor, direction: SortDirection): number {
  if (anchor.kind === 'turnId') {
    const index = ordered.findIndex((element) => element.turnId === anchor.turnId);
    if (index < 0) throw invalidCursor('anchor turn is no longer present');
    return anchor.includeAnchor ? index : index + 1;
  }
  // Ordinals grow along the file: past the anchor means greater (asc) or smaller (desc).
  const after = (ordinal: number) =>
    direction === 'asc'
      ? ordinal > anchor.ordinal || (anchor.includeAnchor && ordinal === anchor.ordinal)
      : ordinal < anchor.ordinal || (anchor.includeAnchor && ordinal === anchor.ordinal);
  const index = ordered.findIndex((element) => element.ordinal !== null && after(element.ordinal));
  return index < 0 ? ordered.length : index;
}

// `summary` keeps the first user message and the final agent message, as the reference does.
function withItemsView(turn: Turn, view: TurnItemsView): Turn {
  if (view === 'notLoaded') return { ...turn, items: [], itemsView: 'notLoaded' };
  if (view === 'full') return { ...turn, itemsView: 'full' };
  const user = turn.items.find((item) => item.type === 'userMessage');
  const agent = [...turn.items].reverse().find((item) => item.type === 'agentMessage');
  const items = [user, agent].filter((item) => item !== undefined) as ThreadItem[];
  return { ...turn, items, itemsView: 'summary' };
}
