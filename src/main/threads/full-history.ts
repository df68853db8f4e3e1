// A loaded thread's whole history as `thread/read` and `thread/resume` show it (fullTurns). A
// long thread's is megabytes of JSON, a stall of the main thread to serialize (bench case
// `stored-read`). A cold
// resume brings it already serialized by the pool worker that read it (`fullTurnsJson`), and
// the turns it covers never change afterwards (a rollout only grows), so those bytes are kept
// and reused, also while the transcript is still being filled after the resume; only the turns run
// since are serialized here.
import { fullTurns } from '../../common/rollout/history-view.js';
import type { Turn } from '../../common/wire-types.js';
import { EncodedJson } from '../protocol/encoded-json.js';
import type { LoadedThread } from './loaded-thread.js';

const COMMA = Buffer.from(',');

/** The thread's turns as fullTurns shows them: what a cold resume serialized, as bytes, and the rest. */
export function fullHistory(thread: LoadedThread): Turn[] | EncodedJson {
  const resumed = thread.resumedHistoryJson;
  if (resumed === null) return fullTurns(thread.historyMode, thread.turns);
  // Fewer turns in the transcript than the bytes hold: it is still being filled (transcript-fill.ts),
  // and no turn starts before it is, so the bytes are the whole history.
  if (thread.turns.length <= resumed.count) return resumed.json;
  const since = Array.from({ length: thread.turns.length - resumed.count }, (_, i) => resumed.count + i);
  const tail = Buffer.from(JSON.stringify(fullTurns(thread.historyMode, thread.turns, since)));
  if (resumed.count === 0) return new EncodedJson(tail);
  // "[a,b]" and "[c]" make "[a,b,c]": pieces of the kept bytes, never copied into one buffer
  // (a long history's are tens of megabytes).
  const kept = resumed.json.parts;
  const last = kept.at(-1)!;
  return new EncodedJson([...kept.slice(0, -1), last.subarray(0, last.length - 1), COMMA, tail.subarray(1)]);
}
