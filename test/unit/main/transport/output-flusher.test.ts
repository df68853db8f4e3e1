import { setImmediate as nextIteration } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { OutputFlusher, type CorkableOutput } from '../../../../src/main/transport/output-flusher.js';

/** An output that records cork/uncork calls. */
function recordingOutput(name: string, calls: string[]): CorkableOutput {
  return { cork: () => void calls.push(`cork ${name}`), uncork: () => void calls.push(`uncork ${name}`) };
}

describe('OutputFlusher', () => {
  it('lets the first message of an iteration out at once, corks from the second, and uncorks every corked output at the end', async () => {
    const calls: string[] = [];
    const a = recordingOutput('a', calls);
    const b = recordingOutput('b', calls);
    const c = recordingOutput('c', calls);
    const flusher = new OutputFlusher();
    flusher.beforeWrite(a);
    flusher.beforeWrite(b);
    flusher.beforeWrite(c);
    expect(calls).toEqual([]);
    flusher.beforeWrite(a);
    flusher.beforeWrite(b);
    flusher.beforeWrite(a);
    expect(calls).toEqual(['cork a', 'cork b']);
    await nextIteration();
    expect(calls).toEqual(['cork a', 'cork b', 'uncork a', 'uncork b']);
    // A flush with nothing held is a no-op: nothing is uncorked twice.
    flusher.flushNow();
    expect(calls).toEqual(['cork a', 'cork b', 'uncork a', 'uncork b']);
  });

  it('starts over in the next iteration', async () => {
    const calls: string[] = [];
    const a = recordingOutput('a', calls);
    const flusher = new OutputFlusher();
    flusher.beforeWrite(a);
    flusher.beforeWrite(a);
    await nextIteration();
    flusher.beforeWrite(a);
    await nextIteration();
    flusher.beforeWrite(a);
    flusher.beforeWrite(a);
    flusher.flushNow();
    expect(calls).toEqual(['cork a', 'uncork a', 'cork a', 'uncork a']);
  });
});
