// The diff tests of codex-rs/apply-patch/src/lib.rs (`test_unified_diff*`), run on the texts
// before and after, plus the range and newline forms `similar` prints.
import { describe, expect, it } from 'vitest';
import { unifiedDiff } from '../../../../../src/main/tools/patch/unified-diff.js';

describe('unifiedDiff', () => {
  it('joins changes one unchanged line apart into one hunk', () => {
    expect(unifiedDiff('foo\nbar\nbaz\nqux\n', 'foo\nBAR\nbaz\nQUX\n')).toBe('@@ -1,4 +1,4 @@\n foo\n-bar\n+BAR\n baz\n-qux\n+QUX\n');
  });

  it('replaces the first line', () => {
    expect(unifiedDiff('foo\nbar\nbaz\n', 'FOO\nbar\nbaz\n')).toBe('@@ -1,2 +1,2 @@\n-foo\n+FOO\n bar\n');
  });

  it('replaces the last line', () => {
    expect(unifiedDiff('foo\nbar\nbaz\n', 'foo\nbar\nBAZ\n')).toBe('@@ -2,2 +2,2 @@\n bar\n-baz\n+BAZ\n');
  });

  it('inserts at the end of the file', () => {
    expect(unifiedDiff('foo\nbar\nbaz\n', 'foo\nbar\nbaz\nquux\n')).toBe('@@ -3 +3,2 @@\n baz\n+quux\n');
  });

  it('replaces a one-line file', () => {
    expect(unifiedDiff('session directory content\n', 'updated session directory content\n')).toBe(
      '@@ -1 +1 @@\n-session directory content\n+updated session directory content\n',
    );
  });

  it('splits hunks more than two unchanged lines apart', () => {
    expect(unifiedDiff('a\nb\nc\nd\ne\nf\n', 'A\nb\nc\nd\ne\nF\n')).toBe('@@ -1,2 +1,2 @@\n-a\n+A\n b\n@@ -5,2 +5,2 @@\n e\n-f\n+F\n');
  });

  it('gives an empty range as the line before it', () => {
    expect(unifiedDiff('', 'new\n')).toBe('@@ -0,0 +1 @@\n+new\n');
    expect(unifiedDiff('a\nb\n', 'b\n')).toBe('@@ -1,2 +1 @@\n-a\n b\n');
  });

  it('marks a missing final newline', () => {
    expect(unifiedDiff('no newline at end', 'first line\nsecond line\n')).toBe(
      '@@ -1 +1,2 @@\n-no newline at end\n\\ No newline at end of file\n+first line\n+second line\n',
    );
  });

  it('is empty for equal texts', () => {
    expect(unifiedDiff('same\n', 'same\n')).toBe('');
  });
});
