// Random input at the SSE parser: a model stream is untrusted bytes. Whatever arrives and
// however it is chunked, the parser returns events or throws only its own size error, and
// a stream of well-formed events parses to exactly those events at any chunk boundaries.
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { SseEventTooLargeError, SseParser, type SseEvent } from '../../../../src/actors/model/sse-parser.js';

/** Splits `bytes` at the given cut points (taken modulo its length). */
function chunk(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const point of points) {
    chunks.push(bytes.subarray(from, point));
    from = point;
  }
  chunks.push(bytes.subarray(from));
  return chunks;
}

function parseAll(chunks: Buffer[], maxEventLength?: number): SseEvent[] {
  const parser = new SseParser(maxEventLength === undefined ? {} : { maxEventLength });
  const events: SseEvent[] = [];
  for (const piece of chunks) events.push(...parser.push(piece));
  events.push(...parser.end());
  return events;
}

// Event names and data lines hold no line breaks; anything else goes, including non-ASCII.
const lineText = fc.string({ unit: 'grapheme', maxLength: 20 }).map((text) => text.replace(/[\r\n]/g, ''));
const event = fc.record({ event: fc.option(lineText, { nil: null }), dataLines: fc.array(lineText, { maxLength: 4 }) }).filter((e) => e.event !== null || e.dataLines.length > 0);
const lineEnd = fc.constantFrom('\n', '\r\n', '\r');

test('arbitrary bytes in arbitrary chunks yield events or the size error, nothing else', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 2_000 }), fc.array(fc.nat(), { maxLength: 20 }), fc.integer({ min: 1, max: 4_096 }), (bytes, cuts, limit) => {
      try {
        for (const e of parseAll(chunk(Buffer.from(bytes), cuts), limit)) expect(typeof e.data).toBe('string');
      } catch (error) {
        expect(error).toBeInstanceOf(SseEventTooLargeError);
      }
    }),
    { numRuns: 500 },
  );
});

test('text made of SSE syntax parses the same whole and in random chunks', () => {
  const syntax = fc.array(fc.constantFrom('data:', 'data: x', 'event: e', ': c', 'id: 1', 'retry: 5', '\n', '\r', '\r\n', '\ufeff', 'é', ':', ' '), { maxLength: 60 });
  fc.assert(
    fc.property(syntax, fc.array(fc.nat(), { maxLength: 20 }), (parts, cuts) => {
      const bytes = Buffer.from(parts.join(''), 'utf8');
      expect(parseAll(chunk(bytes, cuts))).toEqual(parseAll([bytes]));
    }),
    { numRuns: 500 },
  );
});

test('well-formed events come back exactly, whatever the line ends, comments and chunk boundaries', () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(event, lineEnd, fc.boolean()), { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 30 }), (events, cuts) => {
      let text = '';
      for (const [e, end, comment] of events) {
        if (comment) text += `: keep-alive${end}`;
        if (e.event !== null) text += `event: ${e.event}${end}`;
        for (const line of e.dataLines) text += `data: ${line}${end}`;
        text += end;
      }
      const expected = events.map(([e]) => ({ event: e.event, data: e.dataLines.join('\n') }));
      expect(parseAll(chunk(Buffer.from(text, 'utf8'), cuts))).toEqual(expected);
    }),
    { numRuns: 500 },
  );
});

test('an endless line without a line end is refused once it passes the limit, however it is chunked', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 512 }), fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 50 }), (limit, sizes) => {
      const parser = new SseParser({ maxEventLength: limit });
      let fed = 0;
      let refusedAt: number | null = null;
      for (const size of [...sizes, limit + 1]) {
        fed += size;
        try {
          parser.push('x'.repeat(size));
        } catch (error) {
          expect(error).toBeInstanceOf(SseEventTooLargeError);
          refusedAt = fed;
          break;
        }
      }
      expect(refusedAt !== null && refusedAt > limit).toBe(true);
    }),
    { numRuns: 300 },
  );
});
