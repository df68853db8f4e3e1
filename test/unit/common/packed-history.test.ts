// A cold resume's history crosses to the main thread in slices (packed-history.ts): unpacked in
// order they give back every turn and position as they were, each slice near SLICE_BYTES
// unless one turn alone is larger, and the figures beside them match the turns.
import { expect, test } from 'vitest';
import { lastOrdinals, sourceWithPositions } from '../../../src/common/rollout/history-pages.js';
import type { TurnPosition } from '../../../src/common/rollout/turn-history-builder.js';
import { packHistory, SLICE_BYTES } from '../../../src/common/packed-history.js';
import { unpackSlice } from '../../../src/common/snapshot-decoder.js';
import type { Turn, TurnId, UserMessageItem } from '../../../src/common/wire-types.js';

function turn(k: number, textChars: number): Turn {
  const id = `01a23766-0000-7000-8000-${String(k).padStart(12, '0')}` as TurnId;
  const user: UserMessageItem = { type: 'userMessage', id: `u${k}`, clientId: null, content: [{ type: 'text', text: 'x'.repeat(textChars), text_elements: [] }], startedAtMs: k, completedAtMs: k };
  return { id, rootTurnId: id, items: [user], itemsView: 'full', status: 'completed', error: null, startedAt: k, completedAt: k, durationMs: 1 };
}

function unpackAll(slices: Uint8Array[]): { turns: Turn[]; positions: TurnPosition[] } {
  const turns: Turn[] = [];
  const positions: TurnPosition[] = [];
  for (const bytes of slices) {
    const slice = unpackSlice(bytes);
    expect(slice.positions).toHaveLength(slice.turns.length);
    turns.push(...slice.turns);
    positions.push(...slice.positions);
  }
  return { turns, positions };
}

test('many small turns and a few huge ones come back whole and in order, in slices near the target size', () => {
  const sizes = [...Array.from({ length: 1200 }, (_, k) => 200 + (k % 7) * 300), 3 * SLICE_BYTES, ...Array.from({ length: 50 }, () => 1_000), SLICE_BYTES + 1];
  const turns = sizes.map((chars, k) => turn(k, chars));
  const positions: TurnPosition[] = turns.map((_, k) => ({ ordinal: k % 5 === 0 ? null : 10 * k, items: [k % 3 === 0 ? null : 10 * k + 1] }));
  const packed = packHistory('paginated', turns, positions);
  expect(unpackAll(packed.slices)).toEqual({ turns, positions });
  // Only the slices holding the two turns larger than the target exceed twice the target, and
  // there are not many more slices than the bytes need (the first, and the one after a huge
  // turn, are small while the size is learnt).
  const total = packed.slices.reduce((sum, bytes) => sum + bytes.length, 0);
  const oversized = packed.slices.filter((bytes) => bytes.length >= 2 * SLICE_BYTES).map((bytes) => unpackSlice(bytes).turns.some((t) => t.id === turns[1200]!.id || t.id === turns.at(-1)!.id));
  expect(oversized).toEqual([true]);
  expect(packed.slices.length).toBeGreaterThan(5);
  expect(packed.slices.length).toBeLessThanOrEqual(Math.ceil(total / SLICE_BYTES) + 4);
  // Each slice owns its buffer, so it can be transferred alone.
  for (const bytes of packed.slices) expect([bytes.byteOffset, bytes.buffer.byteLength]).toEqual([0, bytes.length]);
  const last = lastOrdinals(sourceWithPositions('t', 'paginated', turns, positions));
  expect({ ...packed, slices: packed.slices.length }).toEqual({
    turnCount: turns.length,
    lastTurnId: turns.at(-1)!.id,
    lastTurnOrdinal: last.turn,
    lastItemOrdinal: last.item,
    slices: packed.slices.length,
  });
});

test('the backwards anchors are the last known ordinals, scanning back past unknown ones', () => {
  const turns = [turn(0, 10), turn(1, 10), turn(2, 10)];
  const positions: TurnPosition[] = [
    { ordinal: 3, items: [4] },
    { ordinal: 7, items: [null] },
    { ordinal: null, items: [null] },
  ];
  const { slices, ...rest } = packHistory('paginated', turns, positions);
  expect({ ...rest, slices: slices.length }).toEqual({ turnCount: 3, lastTurnId: turns[2]!.id, lastTurnOrdinal: 7, lastItemOrdinal: 4, slices: 1 });
});

test('no turns pack to no slices; legacy history has no anchors, whatever its positions say', () => {
  expect(packHistory('paginated', [], [])).toEqual({ turnCount: 0, lastTurnId: null, lastTurnOrdinal: null, lastItemOrdinal: null, slices: [] });
  const turns = [turn(0, 10)];
  const { slices, ...rest } = packHistory('legacy', turns, [{ ordinal: 3, items: [4] }]);
  expect({ ...rest, slices: slices.length }).toEqual({ turnCount: 1, lastTurnId: turns[0]!.id, lastTurnOrdinal: null, lastItemOrdinal: null, slices: 1 });
});
