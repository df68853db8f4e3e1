// An unloaded thread's fenced close must reach its worker only after `thread/closed` has been
// written: a worker woken during that write competes with the clients reading it for the
// cores. The unload announces, then asks for the close; the output flusher holds the
// announcement (corked) until the end of the iteration. Whichever of the two was queued
// first, the close is posted after the uncork.
import { expect, test } from 'vitest';
import { CloseBatcher, type ClosingLink } from '../../../../src/main/pool/close-batcher.js';
import { OutputFlusher, type CorkableOutput } from '../../../../src/main/transport/output-flusher.js';

/** One output and one worker, both recording into `events` what reached them, in order. */
function recordingPair(events: string[]): { output: CorkableOutput; link: ClosingLink } {
  const output: CorkableOutput = { cork: () => void events.push('cork'), uncork: () => void events.push('uncork') };
  const link: ClosingLink = {
    alive: true,
    api: {
      closeMany: (threadIds: string[]) => {
        events.push(`closeMany ${threadIds.join(',')}`);
        return Promise.resolve(threadIds.map(() => 'closed' as const));
      },
    },
  };
  return { output, link };
}

/** What a transport does for one message: tell the flusher, then write. */
function write(flusher: OutputFlusher, output: CorkableOutput, events: string[], message: string): void {
  flusher.beforeWrite(output);
  events.push(`write ${message}`);
}

test('the fenced close is posted after the iteration\'s output, thread/closed included, is uncorked', async () => {
  const events: string[] = [];
  const { output, link } = recordingPair(events);
  const flusher = new OutputFlusher();
  const closes = new CloseBatcher(() => false);
  write(flusher, output, events, 'unsubscribe reply');
  write(flusher, output, events, 'thread/closed');
  const closed = closes.closeSoon(link, 'a');
  expect(events).toEqual(['write unsubscribe reply', 'cork', 'write thread/closed']);
  expect(await closed).toBe('closed');
  expect(events).toEqual(['write unsubscribe reply', 'cork', 'write thread/closed', 'uncork', 'closeMany a']);
});

test('a close queued before the iteration\'s first write still waits for the uncork', async () => {
  const events: string[] = [];
  const { output, link } = recordingPair(events);
  const flusher = new OutputFlusher();
  const closes = new CloseBatcher(() => false);
  // Queued first: a plain setImmediate here would post the close before the flush.
  const closed = closes.closeSoon(link, 'a');
  write(flusher, output, events, 'thread/status/changed');
  write(flusher, output, events, 'thread/closed');
  expect(await closed).toBe('closed');
  expect(events).toEqual(['write thread/status/changed', 'cork', 'write thread/closed', 'uncork', 'closeMany a']);
});

test('closes queued in one iteration go to their worker in one message, each with its own answer', async () => {
  const events: string[] = [];
  const { link } = recordingPair(events);
  const closes = new CloseBatcher(() => false);
  const answers = await Promise.all([closes.closeSoon(link, 'a'), closes.closeSoon(link, 'b')]);
  expect({ answers, events }).toEqual({ answers: ['closed', 'closed'], events: ['closeMany a,b'] });
});
