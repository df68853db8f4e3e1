import { expect, test } from 'vitest';
import { SseEventTooLargeError, SseParser, type SseEvent } from '../../../../src/actors/model/sse-parser.js';
import { mulberry32 } from '../../../../bench/lib/seeded-random.js';

function parseChunks(chunks: Array<string | Buffer>, options?: { maxEventLength?: number }): SseEvent[] {
  const parser = new SseParser(options);
  const events: SseEvent[] = [];
  for (const chunk of chunks) events.push(...parser.push(chunk));
  events.push(...parser.end());
  return events;
}

test('an event line and a data line make one event', () => {
  expect(parseChunks(['event: response.created\ndata: {"a":1}\n\n'])).toEqual([
    { event: 'response.created', data: '{"a":1}' },
  ]);
});

test('a data-only block has a null event name', () => {
  expect(parseChunks(['data: one\n\ndata: two\n\n'])).toEqual([
    { event: null, data: 'one' },
    { event: null, data: 'two' },
  ]);
});

test('several data lines are joined with newlines', () => {
  expect(parseChunks(['data: first\ndata:second\ndata\ndata:  indented\n\n'])).toEqual([
    { event: null, data: 'first\nsecond\n\n indented' },
  ]);
});

test('comments and unknown fields are ignored', () => {
  expect(parseChunks([': keep-alive\nid: 7\nretry: 100\nfoo: bar\ndata: x\n\n: done\n\n'])).toEqual([
    { event: null, data: 'x' },
  ]);
});

test('a block with only an event line yields empty data', () => {
  expect(parseChunks(['event: response.in_progress\n\n'])).toEqual([{ event: 'response.in_progress', data: '' }]);
});

test('CRLF, CR and LF line ends are equivalent', () => {
  const expected = [{ event: 'e', data: 'a\nb' }];
  expect(parseChunks(['event: e\r\ndata: a\r\ndata: b\r\n\r\n'])).toEqual(expected);
  expect(parseChunks(['event: e\rdata: a\rdata: b\r\r'])).toEqual(expected);
  expect(parseChunks(['event: e\ndata: a\ndata: b\n\n'])).toEqual(expected);
});

test('a CRLF split between chunks is one line end, not two', () => {
  expect(parseChunks(['data: a\r', '\ndata: b\r', '\n\r', '\n'])).toEqual([{ event: null, data: 'a\nb' }]);
});

test('a UTF-8 sequence split between chunks decodes intact', () => {
  const bytes = Buffer.from('data: héllo 🌍 ✓\n\n', 'utf8');
  const oneBytePerChunk = Array.from(bytes, (byte) => Buffer.from([byte]));
  expect(parseChunks(oneBytePerChunk)).toEqual([{ event: null, data: 'héllo 🌍 ✓' }]);
});

test('a leading byte order mark is not part of the first field name', () => {
  expect(parseChunks([Buffer.from('\ufeffdata: x\n\n', 'utf8')])).toEqual([{ event: null, data: 'x' }]);
});

test('an event without its terminating blank line is discarded at the end', () => {
  expect(parseChunks(['data: complete\n\ndata: truncated\n'])).toEqual([{ event: null, data: 'complete' }]);
});

test('an event larger than the limit throws a clear error', () => {
  const parser = new SseParser({ maxEventLength: 10 });
  expect(() => parser.push('data: 0123\ndata: 456789\n\n')).toThrowError(
    new SseEventTooLargeError(10),
  );
  expect(new SseEventTooLargeError(10).message).toEqual('SSE event exceeds the limit of 10 characters');
});

test('an unterminated line larger than the limit throws before the line ends', () => {
  const parser = new SseParser({ maxEventLength: 16 });
  expect(() => {
    for (let i = 0; i < 10; i += 1) parser.push('data: xxxx');
  }).toThrowError(SseEventTooLargeError);
});

test('events at the limit are accepted and the count restarts per event', () => {
  const events = parseChunks(['data: 12345\n\ndata: 12345\n\n'], { maxEventLength: 6 });
  expect(events).toEqual([{ event: null, data: '12345' }, { event: null, data: '12345' }]);
});


test('random chunk splits give the same events as one chunk', () => {
  const seed = Number(process.env.SSE_SEED ?? Date.now() % 2 ** 31);
  console.log(`sse-parser random split seed: ${seed} (rerun with SSE_SEED=${seed})`);
  const random = mulberry32(seed);
  const ends = ['\n', '\r', '\r\n'];
  const texts = ['{"type":"response.output_text.delta","delta":"héllo"}', '🌍🌍 ✓', '', 'plain', ':not a comment'];
  let stream = '';
  for (let i = 0; i < 60; i += 1) {
    const end = ends[Math.floor(random() * ends.length)] ?? '\n';
    const text = texts[Math.floor(random() * texts.length)] ?? '';
    if (random() < 0.3) stream += `: comment ${i}${end}`;
    if (random() < 0.6) stream += `event: e${i}${end}`;
    stream += `data: ${text}${end}`;
    if (random() < 0.3) stream += `data: second ${i}${end}`;
    stream += end;
  }
  const bytes = Buffer.from(stream, 'utf8');
  const expected = parseChunks([bytes]);
  expect(expected.length).toEqual(60);

  for (let round = 0; round < 50; round += 1) {
    const chunks: Buffer[] = [];
    for (let at = 0; at < bytes.length; ) {
      const size = 1 + Math.floor(random() * 12);
      chunks.push(bytes.subarray(at, at + size));
      at += size;
    }
    expect(parseChunks(chunks)).toEqual(expected);
  }
});
