// A cold resume's turns enter the thread's transcript after the resume is answered, one slice of
// the packed history (packed-history.ts) per event-loop iteration. The answer itself needs
// none of them: its turns come serialized by the pool worker, its cursors and last turn id
// beside the slices. Decoding a long thread's history in one piece held every other request
// up (the server's event-loop delay in bench case `stored-read`, `loaded`); between slices,
// other requests are answered.
//
// Until the fill is done, requests that read or change the turns wait for it
// (`afterHistoryLoaded`, pending-load.ts): turn/start and turn/interrupt, full and paged reads,
// a warm resume. Nothing else touches a resumed thread's turns in the meantime (no turn can run
// before turn/start), so the slices are appended in order to an otherwise untouched list.
import type { PackedHistory } from '../../common/packed-history.js';
import type { HostContext } from '../host-context.js';
import type { LoadedThread } from './loaded-thread.js';
import { nextIteration, outputFlushed } from '../scheduling.js';

/** Starts filling `thread`'s empty transcript from `history`; `thread.transcriptFill` settles when it is full. */
export function fillTranscript(ctx: HostContext, thread: LoadedThread, history: PackedHistory): void {
  if (history.slices.length === 0) return;
  thread.transcriptFillStarted(fillInSlices(ctx, thread, history.slices));
}

async function fillInSlices(ctx: HostContext, thread: LoadedThread, slices: Uint8Array[]): Promise<void> {
  try {
    // The first slice comes after the answer has left, in an iteration of its own.
    await outputFlushed();
    for (let index = 0; index < slices.length; index += 1) {
      await nextIteration();
      // Gone: nothing reads this transcript again (reads of an unloaded thread go to its rollout).
      if (thread.lifecycle.kind === 'unloaded') return;
      const slice = ctx.pool.unpackHistorySlice(slices[index]!);
      // Let each slice's bytes go as soon as they are decoded.
      slices[index] = EMPTY;
      thread.resumedTurnsDecoded(slice.turns, slice.positions);
    }
  } catch (error) {
    // The client was told the thread is resumed, but its history could not enter its transcript; rather
    // than answer reads from part of it, the thread is closed (a resume reads it again). The
    // fill settles once it is gone, so requests waiting for it find the thread unloaded.
    ctx.log('error', 'a resumed history could not enter its transcript', { threadId: thread.id, error: (error as Error).stack ?? String(error) });
    await ctx.supervisor.unload(thread, 'loadFailed');
  }
}

const EMPTY = new Uint8Array(0);
