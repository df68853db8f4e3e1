import { Socket } from 'node:net';
import { setImmediate as nextIteration } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { OutputFlusher } from '../../../../src/main/transport/output-flusher.js';

/** A socket that records cork/uncork calls instead of touching a file descriptor. */
function recordingSocket(name: string, calls: string[]): Socket {
  const socket = new Socket();
  socket.cork = () => void calls.push(`cork ${name}`);
  socket.uncork = () => void calls.push(`uncork ${name}`);
  return socket;
}

describe('OutputFlusher', () => {
  it('corks each socket once per iteration and uncorks all of them together at its end', async () => {
    const calls: string[] = [];
    const a = recordingSocket('a', calls);
    const b = recordingSocket('b', calls);
    const flusher = new OutputFlusher();
    flusher.hold(a);
    flusher.hold(b);
    flusher.hold(a);
    expect(calls).toEqual(['cork a', 'cork b']);
    expect(flusher.pending).toBe(2);
    await nextIteration();
    expect(calls).toEqual(['cork a', 'cork b', 'uncork a', 'uncork b']);
    expect(flusher.pending).toBe(0);
  });

  it('corks again in a later iteration after a flush', async () => {
    const calls: string[] = [];
    const a = recordingSocket('a', calls);
    const flusher = new OutputFlusher();
    flusher.hold(a);
    await nextIteration();
    flusher.hold(a);
    await nextIteration();
    expect(calls).toEqual(['cork a', 'uncork a', 'cork a', 'uncork a']);
  });
});
