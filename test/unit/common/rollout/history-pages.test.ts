// Paged history reads against the pages the reference (codex-cli 0.171.0) answered for a
// six-turn thread in each format, limit 2, both directions and reversals (recorded with the
// real binary; the turn and item ordinals are the ones its paginated rollout had).
import { describe, expect, test } from 'vitest';
import { RpcError } from '../../../../src/common/errors.js';
import { checkItemsRequest, itemsPage, sourceWithPositions, turnsPage, type HistorySource, type Page } from '../../../../src/common/rollout/history-pages.js';
import { fullTurns } from '../../../../src/common/rollout/history-view.js';
import type { AgentMessageItem, Turn, TurnId, UserMessageItem } from '../../../../src/common/wire-types.js';

const THREAD = '01a23766-dbf9-76d3-b2f7-1761e51f9676';
const turnId = (k: number) => `01a23766-0000-7000-8000-00000000000${k}` as TurnId;
const userId = (k: number) => `01a23766-1111-7000-8000-00000000000${k}`;

function user(k: number): UserMessageItem {
  return { type: 'userMessage', id: userId(k), clientId: null, content: [{ type: 'text', text: `turn ${k}`, text_elements: [] }], startedAtMs: 1000 * k, completedAtMs: 1000 * k };
}
function agent(k: number): AgentMessageItem {
  return { type: 'agentMessage', moderation: null, id: 'msg-1', text: 'Done', phase: null, memoryCitation: null, delivery: null, questions: null, startedAtMs: 1000 * k + 5, completedAtMs: 1000 * k + 5 };
}
function turn(k: number): Turn {
  return { id: turnId(k), rootTurnId: turnId(k), items: [user(k), agent(k)], itemsView: 'full', status: 'completed', error: null, startedAt: k, completedAt: k, durationMs: 5 };
}

const TURNS = [1, 2, 3, 4, 5, 6].map(turn);
// The reference's first turn has four set-up lines more than the later ones.
const TURN_ORDINAL = [1, 14, 23, 32, 41, 50];
const PAGINATED: HistorySource = sourceWithPositions(
  THREAD,
  'paginated',
  TURNS,
  TURN_ORDINAL.map((ordinal, i) => ({ ordinal, items: [8 + 9 * i, 9 + 9 * i] })),
);
const LEGACY: HistorySource = sourceWithPositions(THREAD, 'legacy', TURNS, TURNS.map(() => ({ ordinal: null, items: [null, null] })));

const legacyCursor = (k: number, includeAnchor: boolean) => JSON.stringify({ turnId: turnId(k), includeAnchor });
const cursor = (ordinal: number, includeAnchor: boolean, kind: 'turns' | 'itemsByCreatedAtOrdinal' = 'turns') =>
  JSON.stringify({ requestedThreadId: THREAD, rolloutOrdinal: ordinal, includeAnchor, scope: { kind } });
const ids = (page: { data: Turn[] }) => page.data.map((t) => TURNS.indexOf(TURNS.find((x) => x.id === t.id)!) + 1);
const request = (over: Partial<Parameters<typeof turnsPage>[1]> = {}) => ({ cursor: null, limit: 2, sortDirection: null, itemsView: null, ...over });

function rpcError(run: () => unknown): { code: number; message: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof RpcError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('no error');
}

describe('thread/turns/list on a legacy thread', () => {
  test('pages newest first, and each cursor continues or reverses as the reference does', () => {
    const p0 = turnsPage(LEGACY, request());
    expect([ids(p0), p0.nextCursor, p0.backwardsCursor]).toEqual([[6, 5], legacyCursor(5, false), legacyCursor(6, true)]);
    const p1 = turnsPage(LEGACY, request({ cursor: p0.nextCursor }));
    expect([ids(p1), p1.nextCursor, p1.backwardsCursor]).toEqual([[4, 3], legacyCursor(3, false), legacyCursor(4, true)]);
    const p2 = turnsPage(LEGACY, request({ cursor: p1.nextCursor }));
    expect([ids(p2), p2.nextCursor, p2.backwardsCursor]).toEqual([[2, 1], null, legacyCursor(2, true)]);
    const back = turnsPage(LEGACY, request({ cursor: p1.backwardsCursor, sortDirection: 'asc' }));
    expect([ids(back), back.nextCursor, back.backwardsCursor]).toEqual([[4, 5], legacyCursor(5, false), legacyCursor(4, true)]);
    const other = turnsPage(LEGACY, request({ cursor: p0.nextCursor, sortDirection: 'asc' }));
    expect([ids(other), other.nextCursor, other.backwardsCursor]).toEqual([[6], null, legacyCursor(6, true)]);
    expect(ids(turnsPage(LEGACY, request({ limit: null })))).toEqual([6, 5, 4, 3, 2, 1]);
  });

  test('shows items as item-N with no times, the summary being the user and the final agent message', () => {
    const page = turnsPage(LEGACY, request({ limit: 1 }));
    expect(page.data).toEqual([
      {
        ...TURNS[5],
        itemsView: 'summary',
        items: [
          { ...user(6), id: 'item-11', startedAtMs: null, completedAtMs: null },
          { ...agent(6), id: 'item-12', startedAtMs: null, completedAtMs: null },
        ],
      },
    ]);
    expect(turnsPage(LEGACY, request({ limit: 1, itemsView: 'notLoaded' })).data).toEqual([{ ...TURNS[5], items: [], itemsView: 'notLoaded' }]);
    // Only the page's turns are shown, numbered as in the whole thread: every page of one turn is
    // that turn of the full history view.
    const whole = fullTurns('legacy', TURNS);
    let next: string | null = null;
    for (let i = TURNS.length - 1; i >= 0; i -= 1) {
      const one: Page<Turn> = turnsPage(LEGACY, request({ limit: 1, itemsView: 'full', cursor: next }));
      expect(one.data).toEqual([whole[i]]);
      next = one.nextCursor;
    }
    expect(next).toBeNull();
  });

  test('numbers items across turns of uneven length, empty ones included, on any page', () => {
    // Turns of one, no and three items: the third's items are item-2, item-3 and item-4.
    const uneven = [{ ...turn(1), items: [user(1)] }, { ...turn(2), items: [] }, { ...turn(3), items: [user(3), agent(3), agent(3)] }];
    const source = sourceWithPositions(THREAD, 'legacy', uneven, uneven.map((t) => ({ ordinal: null, items: t.items.map(() => null) })));
    const pageAfter = (after: string | null) => turnsPage(source, request({ limit: 1, itemsView: 'full', cursor: after }));
    const p0 = pageAfter(null);
    const p1 = pageAfter(p0.nextCursor);
    const p2 = pageAfter(p1.nextCursor);
    expect([p0, p1, p2].map((p) => p.data.map((t) => [t.id, t.items.map((item) => item.id)]))).toEqual([
      [[turnId(3), ['item-2', 'item-3', 'item-4']]],
      [[turnId(2), []]],
      [[turnId(1), ['item-1']]],
    ]);
  });

  test('refuses a cursor it cannot read, or whose turn is gone', () => {
    expect(rpcError(() => turnsPage(LEGACY, request({ cursor: 'abc' })))).toEqual({ code: -32600, message: 'invalid cursor: abc' });
    expect(rpcError(() => turnsPage(LEGACY, request({ cursor: '' })))).toEqual({ code: -32600, message: 'invalid cursor: ' });
    expect(rpcError(() => turnsPage(LEGACY, request({ cursor: JSON.stringify({ turnId: 'nope', includeAnchor: true }) })))).toEqual({
      code: -32600,
      message: 'invalid cursor: anchor turn is no longer present',
    });
  });
});

describe('thread/turns/list on a paginated thread', () => {
  test('pages by rollout ordinal with cursors bound to the thread and the scope', () => {
    const p0 = turnsPage(PAGINATED, request());
    expect([ids(p0), p0.nextCursor, p0.backwardsCursor]).toEqual([[6, 5], cursor(41, false), cursor(50, true)]);
    const p1 = turnsPage(PAGINATED, request({ cursor: p0.nextCursor }));
    expect([ids(p1), p1.nextCursor, p1.backwardsCursor]).toEqual([[4, 3], cursor(23, false), cursor(32, true)]);
    const p2 = turnsPage(PAGINATED, request({ cursor: p1.nextCursor }));
    expect([ids(p2), p2.nextCursor, p2.backwardsCursor]).toEqual([[2, 1], null, cursor(14, true)]);
    const asc = turnsPage(PAGINATED, request({ sortDirection: 'asc' }));
    expect([ids(asc), asc.nextCursor, asc.backwardsCursor]).toEqual([[1, 2], cursor(14, false), cursor(1, true)]);
    const reversed = turnsPage(PAGINATED, request({ cursor: turnsPage(PAGINATED, request({ sortDirection: 'asc', cursor: asc.nextCursor })).backwardsCursor }));
    expect([ids(reversed), reversed.nextCursor, reversed.backwardsCursor]).toEqual([[3, 2], cursor(14, false), cursor(23, true)]);
  });

  test('refuses a cursor of another thread, another scope or the legacy shape, echoing it', () => {
    for (const bad of [
      cursor(41, false, 'itemsByCreatedAtOrdinal'),
      JSON.stringify({ requestedThreadId: '01a23766-0000-7000-8000-000000000000', rolloutOrdinal: 41, includeAnchor: false, scope: { kind: 'turns' } }),
      JSON.stringify({ turnId: 'nope', includeAnchor: true }),
      '{}',
    ]) {
      expect(rpcError(() => turnsPage(PAGINATED, request({ cursor: bad })))).toEqual({ code: -32600, message: `invalid cursor: ${bad}` });
    }
  });

  test('clamps the page size to 1..100', () => {
    expect(ids(turnsPage(PAGINATED, request({ limit: 0 })))).toEqual([6]);
    const many = sourceWithPositions(
      THREAD,
      'paginated',
      Array.from({ length: 150 }, () => turn(1)).map((t, i) => ({ ...t, id: `t${i}` as TurnId })),
      Array.from({ length: 150 }, (_, i) => ({ ordinal: i + 1, items: [] })),
    );
    expect(turnsPage(many, request({ limit: 4_294_967_295 })).data.length).toEqual(100);
    expect(turnsPage(many, request({ limit: null })).data.length).toEqual(25);
  });
});

describe('thread/items/list', () => {
  const entry = (k: number, which: 'user' | 'agent') => {
    const item = which === 'user' ? user(k) : agent(k);
    return { turnId: turnId(k), item, startedAtMs: item.startedAtMs, completedAtMs: item.completedAtMs };
  };
  const items = (over: Partial<Parameters<typeof itemsPage>[1]> = {}) => ({ turnId: null, cursor: null, limit: 2, sortDirection: null, ...over });
  const itemCursor = (ordinal: number, include: boolean) => cursor(ordinal, include, 'itemsByCreatedAtOrdinal');

  test('pages a paginated thread oldest first, and reverses across turns', () => {
    const p0 = itemsPage(PAGINATED, items());
    expect(p0).toEqual({ data: [entry(1, 'user'), entry(1, 'agent')], nextCursor: itemCursor(9, false), backwardsCursor: itemCursor(8, true) });
    const p1 = itemsPage(PAGINATED, items({ cursor: p0.nextCursor }));
    expect(p1).toEqual({ data: [entry(2, 'user'), entry(2, 'agent')], nextCursor: itemCursor(18, false), backwardsCursor: itemCursor(17, true) });
    const back = itemsPage(PAGINATED, items({ cursor: p1.backwardsCursor, sortDirection: 'desc' }));
    expect(back).toEqual({ data: [entry(2, 'user'), entry(1, 'agent')], nextCursor: itemCursor(9, false), backwardsCursor: itemCursor(17, true) });
    expect(itemsPage(PAGINATED, items({ cursor: back.nextCursor, sortDirection: 'desc' }))).toEqual({
      data: [entry(1, 'user')],
      nextCursor: null,
      backwardsCursor: itemCursor(8, true),
    });
  });

  test('keeps one turn, and an item anchor starts after (asc) or before (desc) it within that turn', () => {
    expect(itemsPage(PAGINATED, items({ turnId: turnId(2) }))).toEqual({ data: [entry(2, 'user'), entry(2, 'agent')], nextCursor: null, backwardsCursor: itemCursor(17, true) });
    expect(itemsPage(PAGINATED, items({ turnId: turnId(2), cursor: { itemId: userId(2) } })).data).toEqual([entry(2, 'agent')]);
    expect(itemsPage(PAGINATED, items({ turnId: turnId(2), cursor: { itemId: 'msg-1' }, sortDirection: 'desc' })).data).toEqual([entry(2, 'user')]);
    expect(itemsPage(PAGINATED, items({ turnId: 'nope' }))).toEqual({ data: [], nextCursor: null, backwardsCursor: null });
  });

  test('answers errors with the reference codes and texts', () => {
    expect(rpcError(() => checkItemsRequest({ turnId: null, cursor: { itemId: 'x' } }))).toEqual({ code: -32602, message: 'turnId is required when cursor is an item anchor' });
    expect(rpcError(() => itemsPage(PAGINATED, items({ turnId: turnId(2), cursor: { itemId: 'x' } })))).toEqual({
      code: -32602,
      message: 'cursor.itemId does not identify an item in the requested history scope',
    });
    expect(rpcError(() => itemsPage(LEGACY, items()))).toEqual({ code: -32601, message: 'thread/items/list is not supported yet' });
    expect(rpcError(() => itemsPage(null, items()))).toEqual({ code: -32601, message: 'thread/items/list is not supported yet' });
    expect(rpcError(() => itemsPage(PAGINATED, items({ cursor: cursor(9, false) })))).toEqual({ code: -32600, message: `invalid cursor: ${cursor(9, false)}` });
  });
});
