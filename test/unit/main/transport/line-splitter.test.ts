import { describe, expect, test } from 'vitest';
import { LineSplitter, type LineEvent } from '../../../../src/main/transport/line-splitter.js';
import { mulberry32 } from '../../../../bench/lib/seeded-random.js';


/** Feeds `chunks` then ends the stream, returning every event in order. */
function run(maxLineBytes: number, chunks: (Buffer | string)[]): LineEvent[] {
  const splitter = new LineSplitter(maxLineBytes);
  const events = chunks.flatMap((chunk) => splitter.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk)));
  return [...events, ...splitter.end()];
}

const line = (text: string): LineEvent => ({ kind: 'line', text });

// Multi-byte characters (2, 3 and 4 bytes in UTF-8) so that splits land inside code points.
const TEXT = '{"id":1,"method":"initialize"}\r\n{"text":"héllo wörld €5 🎉"}\n\n{"id":2}\r\n{"emoji":"👩‍💻"}\n';
const TEXT_LINES = ['{"id":1,"method":"initialize"}', '{"text":"héllo wörld €5 🎉"}', '', '{"id":2}', '{"emoji":"👩‍💻"}'].map(line);

describe('LineSplitter', () => {
  test('one chunk with several lines', () => {
    expect(run(1024, [TEXT])).toEqual(TEXT_LINES);
  });

  test('a split at every byte position gives the same lines', () => {
    const bytes = Buffer.from(TEXT);
    const results = [];
    for (let cut = 0; cut <= bytes.length; cut += 1) {
      results.push(run(1024, [bytes.subarray(0, cut), bytes.subarray(cut)]));
    }
    expect(results).toEqual(Array.from({ length: bytes.length + 1 }, () => TEXT_LINES));
  });

  test('one byte at a time gives the same lines', () => {
    const bytes = Buffer.from(TEXT);
    expect(run(1024, [...bytes].map((byte) => Buffer.from([byte])))).toEqual(TEXT_LINES);
  });

  test('random multi-chunk splits (seeded) give the same lines', () => {
    const seed = Number(process.env.LINE_SPLITTER_SEED ?? Date.now() % 2 ** 31);
    console.log(`line-splitter random split seed: ${seed} (replay with LINE_SPLITTER_SEED=${seed})`);
    const random = mulberry32(seed);
    const bytes = Buffer.from(TEXT.repeat(20));
    const expected = Array.from({ length: 20 }, () => TEXT_LINES).flat();
    for (let round = 0; round < 200; round += 1) {
      const chunks: Buffer[] = [];
      for (let at = 0; at < bytes.length; ) {
        const size = Math.min(bytes.length - at, Math.floor(random() * 40));
        chunks.push(bytes.subarray(at, at + size));
        at += size;
      }
      expect({ seed, round, events: run(1024, chunks) }).toEqual({ seed, round, events: expected });
    }
  });

  test.each([
    { name: '\\r\\n is stripped to the text before it', chunks: ['a\r\nb\n'], events: [line('a'), line('b')] },
    { name: 'a \\r\\n split between chunks is still one terminator', chunks: ['a\r', '\nb\r', '\n'], events: [line('a'), line('b')] },
    { name: 'a lone \\r inside a line is kept', chunks: ['a\rb\n'], events: [line('a\rb')] },
    { name: 'only one trailing \\r is removed', chunks: ['a\r\r\n'], events: [line('a\r')] },
    { name: 'an empty line is a line', chunks: ['\n\r\n'], events: [line(''), line('')] },
  ])('$name', ({ chunks, events }) => {
    expect(run(1024, chunks)).toEqual(events);
  });

  test('the final line without a newline is returned by end()', () => {
    const splitter = new LineSplitter(1024);
    expect({ pushed: splitter.push(Buffer.from('a\nlast')), ended: splitter.end() }).toEqual({
      pushed: [line('a')],
      ended: [line('last')],
    });
  });

  test('a final unterminated line ending in \\r loses the \\r', () => {
    expect(run(1024, ['x\r'])).toEqual([line('x')]);
  });

  test('end() after a complete line, or on an empty stream, returns nothing', () => {
    expect([run(1024, ['a\n']), run(1024, [])]).toEqual([[line('a')], []]);
  });

  test('a line of exactly maxLineBytes is accepted and one byte more is oversized', () => {
    expect(run(4, ['abcd\nabcde\nok\n'])).toEqual([line('abcd'), { kind: 'oversized', bytes: 5 }, line('ok')]);
  });

  test('maxLineBytes counts bytes, not characters', () => {
    // "éé" is 4 bytes.
    expect(run(3, ['éé\né\n'])).toEqual([{ kind: 'oversized', bytes: 4 }, line('é')]);
  });

  test('an oversized line is reported once, at its end, with its full size, and the next line is intact', () => {
    const splitter = new LineSplitter(10);
    const pushes = [splitter.push(Buffer.from('0123456')), splitter.push(Buffer.from('789ABCD')), splitter.push(Buffer.from('EFG')), splitter.push(Buffer.from('\nnext\n'))];
    expect({ pushes, ended: splitter.end() }).toEqual({
      pushes: [[], [], [], [{ kind: 'oversized', bytes: 17 }, line('next')]],
      ended: [],
    });
  });

  test('an oversized line fed byte by byte is still reported once', () => {
    const bytes = Buffer.from('x'.repeat(50) + '\nok\n');
    expect(run(10, [...bytes].map((byte) => Buffer.from([byte])))).toEqual([{ kind: 'oversized', bytes: 50 }, line('ok')]);
  });

  test('a 64 MiB line is skipped with a 1 KiB limit and counted exactly', () => {
    const mib = Buffer.alloc(1024 * 1024, 0x61);
    const splitter = new LineSplitter(1024);
    const during: LineEvent[] = [];
    for (let i = 0; i < 64; i += 1) during.push(...splitter.push(mib));
    expect({ during, after: splitter.push(Buffer.from('\n{"id":1}\n')) }).toEqual({
      during: [],
      after: [{ kind: 'oversized', bytes: 64 * 1024 * 1024 }, line('{"id":1}')],
    });
  });

  test('an oversized final line without a newline is reported by end()', () => {
    const splitter = new LineSplitter(3);
    expect({ pushed: splitter.push(Buffer.from('abcdef')), ended: splitter.end() }).toEqual({
      pushed: [],
      ended: [{ kind: 'oversized', bytes: 6 }],
    });
  });

  test('invalid UTF-8 is reported for its line only', () => {
    expect(run(1024, [Buffer.from([0x61, 0xff, 0x0a]), 'ok\n', Buffer.from([0xc3, 0x0a]), Buffer.from([0xc3])])).toEqual([
      { kind: 'invalidUtf8' },
      line('ok'),
      { kind: 'invalidUtf8' },
      { kind: 'invalidUtf8' },
    ]);
  });

  test('a code point split across chunks is not invalid', () => {
    const euro = Buffer.from('€\n');
    expect(run(1024, [euro.subarray(0, 1), euro.subarray(1, 2), euro.subarray(2)])).toEqual([line('€')]);
  });

  describe('large lines', () => {
    /** Each segment starts its own ArrayBuffer, shared with no other segment and no chunk fed. */
    const owned = (segments: Uint8Array[], fed: Buffer[]): boolean =>
      segments.every((segment) => segment.byteOffset === 0 && !fed.some((chunk) => chunk.buffer === segment.buffer)) &&
      new Set(segments.map((segment) => segment.buffer)).size === segments.length;

    /** Feeds `chunks` to a splitter with a 16-byte large-line threshold and a 64-byte limit. */
    function runLarge(chunks: (Buffer | string)[]): Array<LineEvent | { kind: 'largeLine'; text: string; bytes: number; owned: boolean }> {
      const splitter = new LineSplitter(64, 0, 16);
      const buffers = chunks.map((chunk) => (Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk)));
      const events = [...buffers.flatMap((chunk) => splitter.push(chunk)), ...splitter.end()];
      return events.map((event) => (event.kind !== 'largeLine' ? event : { kind: 'largeLine', text: Buffer.concat(event.segments).toString('utf8'), bytes: event.bytes, owned: owned(event.segments, buffers) }));
    }

    test('a line of at least largeLineBytes comes out undecoded, in owned segments, without its \\r; shorter ones as text', () => {
      expect(runLarge(['0123456789abcde\n0123456789abcdef\r\n', '01234567', '89abcdef', 'é\nshort\n'])).toEqual([
        line('0123456789abcde'),
        { kind: 'largeLine', text: '0123456789abcdef', bytes: 17, owned: true },
        { kind: 'largeLine', text: '0123456789abcdefé', bytes: 18, owned: true },
        line('short'),
      ]);
    });

    test('a large line past maxLineBytes is still oversized, and invalid UTF-8 in a large line is left to its parser', () => {
      expect(runLarge(['x'.repeat(40), 'y'.repeat(40), '\n', Buffer.from([0xff, ...Buffer.from('z'.repeat(20)), 0x0a])])).toEqual([
        { kind: 'oversized', bytes: 80 },
        { kind: 'largeLine', text: `\ufffd${'z'.repeat(20)}`, bytes: 21, owned: true },
      ]);
    });

    test('a line of several MiB fed in 64 KiB reads comes out in 1 MiB blocks, byte for byte', () => {
      const line = Buffer.from('é'.repeat(1_300_000)); // 2.6 MB, with characters split across blocks and reads
      const chunks: Buffer[] = [];
      for (let at = 0; at < line.length; at += 65_536) chunks.push(Buffer.from(line.subarray(at, at + 65_536)));
      const splitter = new LineSplitter(32 << 20, 0, 65_536);
      const events = [...chunks.flatMap((chunk) => splitter.push(chunk)), ...splitter.push(Buffer.from('\r\n'))];
      expect(
        events.map((event) =>
          event.kind === 'largeLine'
            ? { equal: Buffer.concat(event.segments).equals(line), sizes: event.segments.map((s) => s.byteLength), bytes: event.bytes, owned: owned(event.segments, chunks) }
            : event,
        ),
      ).toEqual([{ equal: true, sizes: [1 << 20, 1 << 20, line.length - (2 << 20)], bytes: line.length + 1, owned: true }]);
    });

    test('the chunks fed are never detached or changed: a large line is copied as it arrives', () => {
      const chunk = Buffer.from(`${'a'.repeat(20)}\nnext`);
      const splitter = new LineSplitter(64, 0, 16);
      const [event] = splitter.push(chunk);
      expect({ chunk: chunk.toString(), ownBuffer: event?.kind === 'largeLine' && event.segments[0]!.buffer !== chunk.buffer }).toEqual({ chunk: `${'a'.repeat(20)}\nnext`, ownBuffer: true });
    });
  });
});
