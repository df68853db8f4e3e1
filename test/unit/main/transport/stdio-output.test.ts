import { PassThrough, Writable } from 'node:stream';
import { setImmediate as nextIteration } from 'node:timers/promises';
import { expect, test } from 'vitest';
import { StdioTransport } from '../../../../src/main/transport/stdio.js';

/** An output that records each write(2) it would make: the chunks of one writev together. */
function recordingOutput(): { output: Writable; writes: string[][] } {
  const writes: string[][] = [];
  const output = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      writes.push([chunk.toString()]);
      callback();
    },
    writev(chunks, callback) {
      writes.push(chunks.map(({ chunk }) => String(chunk)));
      callback();
    },
  });
  return { output, writes };
}

test('a message in pieces leaves in one write, its pieces in order and then its newline; text and bytes as before', async () => {
  const { output, writes } = recordingOutput();
  const transport = new StdioTransport({ input: new PassThrough(), output, maxLineBytes: 1024, maxOutboundBytes: 1 << 20 });

  expect(transport.send([Buffer.from('{"a":'), Buffer.from('"é"'), Buffer.from('}')])).toBe(true);
  await nextIteration();
  expect(transport.send('{"b":1}')).toBe(true);
  await nextIteration();
  expect(transport.send(Buffer.from('{"c":2}'))).toBe(true);
  await nextIteration();

  expect(writes).toEqual([['{"a":', '"é"', '}', '\n'], ['{"b":1}\n'], ['{"c":2}'], ['\n']]);
});
