// A cold resume's turns as they cross from the pool worker to the main thread's mirror: packed
// with msgpackr (snapshot-codec.ts) in slices of about SLICE_BYTES, which the main thread
// decodes (snapshot-decoder.ts) one per event-loop iteration after the resume is answered (src/main/threads/transcript-fill.ts).
// Decoded in one piece, a 20 MB thread's history held every other request up for all of its
// decoding, position bookkeeping and the garbage they leave; a slice holds them up for a small
// fraction of that (bench case `stored-read`).
//
// What the resume's answer needs of the history travels beside the slices: the turn count, the
// last turn's id and the ordinals the backwards cursors start from.
import { lastOrdinals, positionedTurns } from './rollout/history-pages.js';
import type { HistoryMode } from './rollout/rollout-reader.js';
import type { TurnPosition } from './rollout/turn-history-builder.js';
import { encodeSnapshot } from './snapshot-codec.js';
import type { Turn } from './wire-types.js';

/**
 * About how many packed bytes one slice holds. Slices are cut by turn count, sized from the
 * bytes per turn of the slice before, so a turn far larger than its neighbours makes its slice
 * larger (a turn is never split); the next slice is sized down to match.
 */
export const SLICE_BYTES = 64 * 1024;
// The first slice's turn count.
const FIRST_SLICE_TURNS = 16;

/** Some consecutive turns and where they sit in the rollout, one position per turn. */
export interface HistorySlice {
  turns: Turn[];
  positions: TurnPosition[];
}

export interface PackedHistory {
  turnCount: number;
  lastTurnId: string | null;
  /** The ordinal of the last turn record, and of the last item, that have one (the backwards cursors' anchors). */
  lastTurnOrdinal: number | null;
  lastItemOrdinal: number | null;
  /** The turns in order, each slice packed on its own (transferable). */
  slices: Uint8Array[];
}

export function packHistory(mode: HistoryMode, turns: Turn[], positions: readonly TurnPosition[]): PackedHistory {
  const slices: Uint8Array[] = [];
  let take = FIRST_SLICE_TURNS;
  for (let start = 0; start < turns.length; ) {
    const end = Math.min(turns.length, start + take);
    const slice: HistorySlice = { turns: turns.slice(start, end), positions: positions.slice(start, end) };
    const bytes = encodeSnapshot(slice);
    slices.push(bytes);
    take = Math.max(1, Math.floor(SLICE_BYTES / (bytes.length / (end - start))));
    start = end;
  }
  const last = lastOrdinals(positionedTurns(mode, turns, positions));
  return {
    turnCount: turns.length,
    lastTurnId: turns.at(-1)?.id ?? null,
    lastTurnOrdinal: last.turn,
    lastItemOrdinal: last.item,
    slices,
  };
}
