// The four tests of codex-rs/apply-patch/src/seek_sequence.rs, and the punctuation pass.
import { describe, expect, it } from 'vitest';
import { seekSequence } from '../../../../../src/main/tools/patch/seek-sequence.js';

describe('seekSequence', () => {
  it('finds an exact match', () => {
    expect(seekSequence(['foo', 'bar', 'baz'], ['bar', 'baz'], 0, false)).toEqual({ index: 1, fuzz: 'exact' });
  });

  it('ignores trailing whitespace', () => {
    expect(seekSequence(['foo   ', 'bar\t\t'], ['foo', 'bar'], 0, false)).toEqual({ index: 0, fuzz: 'trimEnd' });
  });

  it('ignores leading and trailing whitespace', () => {
    expect(seekSequence(['    foo   ', '   bar\t'], ['foo', 'bar'], 0, false)).toEqual({ index: 0, fuzz: 'trim' });
  });

  it('returns nothing for a pattern longer than the input', () => {
    expect(seekSequence(['just one line'], ['too', 'many', 'lines'], 0, false)).toBeNull();
  });

  it('normalises typographic dashes, quotes and spaces last', () => {
    const lines = ['import asyncio  # local import \u2013 avoids top\u2011level dep', '\u201Cquoted\u201D\u00A0\u2018x\u2019'];
    expect(seekSequence(lines, ['import asyncio  # local import - avoids top-level dep', '"quoted" \'x\''], 0, false)).toEqual({
      index: 0,
      fuzz: 'punctuation',
    });
  });

  it('prefers a stricter match later in the file to a looser one earlier', () => {
    expect(seekSequence(['a ', 'a'], ['a'], 0, false)).toEqual({ index: 1, fuzz: 'exact' });
  });

  it('matches at the end of the file first when eof is set', () => {
    expect(seekSequence(['x', 'y', 'x'], ['x'], 0, true)).toEqual({ index: 2, fuzz: 'exact' });
    expect(seekSequence(['x', 'y', 'x'], ['x'], 0, false)).toEqual({ index: 0, fuzz: 'exact' });
  });

  it('matches an empty pattern at the start', () => {
    expect(seekSequence(['a'], [], 1, false)).toEqual({ index: 1, fuzz: 'exact' });
  });
});
