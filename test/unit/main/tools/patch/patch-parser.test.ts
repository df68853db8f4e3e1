// Ported from the tests in codex-rs/apply-patch/src/parser.rs (openai/codex), plus the
// scenarios' whitespace cases; every error is compared as the whole text.
import { describe, expect, it } from 'vitest';
import { PatchParseError } from '../../../../../src/main/tools/patch/patch-parse-error.js';
import { parsePatch, parseUpdateFileChunk } from '../../../../../src/main/tools/patch/patch-parser.js';

function parseError(run: () => unknown): { message: string; report: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof PatchParseError) return { message: error.message, report: error.report() };
    throw error;
  }
  throw new Error('expected a PatchParseError');
}

const FIRST_LINE = "invalid patch: The first line of the patch must be '*** Begin Patch'";
const LAST_LINE = "invalid patch: The last line of the patch must be '*** End Patch'";

describe('parsePatch', () => {
  it('refuses a patch without its begin and end markers', () => {
    expect(parseError(() => parsePatch('bad', 'strict'))).toEqual({
      message: FIRST_LINE,
      report: "Invalid patch: The first line of the patch must be '*** Begin Patch'",
    });
    expect(parseError(() => parsePatch('*** Begin Patch\nbad', 'strict')).message).toBe(LAST_LINE);
    expect(parseError(() => parsePatch('')).message).toBe(LAST_LINE);
  });

  it('accepts markers padded with whitespace', () => {
    expect(parsePatch('*** Begin Patch \n*** Add File: foo\n+hi\n *** End Patch', 'strict').hunks).toEqual([
      { type: 'add', path: 'foo', contents: 'hi\n' },
    ]);
  });

  it('reports an update hunk with no chunks at its line', () => {
    expect(parseError(() => parsePatch('*** Begin Patch\n*** Update File: test.py\n*** End Patch', 'strict'))).toEqual({
      message: "invalid hunk at line 2, Update file hunk for path 'test.py' is empty",
      report: "Invalid patch hunk on line 2: Update file hunk for path 'test.py' is empty",
    });
  });

  it('parses a patch with no hunks', () => {
    expect(parsePatch('*** Begin Patch\n*** End Patch', 'strict')).toEqual({ hunks: [], patch: '*** Begin Patch\n*** End Patch' });
  });

  it('parses add, delete and update-with-move hunks', () => {
    const text = [
      '*** Begin Patch',
      '*** Add File: path/add.py',
      '+abc',
      '+def',
      '*** Delete File: path/delete.py',
      '*** Update File: path/update.py',
      '*** Move to: path/update2.py',
      '@@ def f():',
      '-    pass',
      '+    return 123',
      '*** End Patch',
    ].join('\n');
    expect(parsePatch(text, 'strict')).toEqual({
      hunks: [
        { type: 'add', path: 'path/add.py', contents: 'abc\ndef\n' },
        { type: 'delete', path: 'path/delete.py' },
        {
          type: 'update',
          path: 'path/update.py',
          movePath: 'path/update2.py',
          chunks: [{ changeContext: 'def f():', oldLines: ['    pass'], newLines: ['    return 123'], isEndOfFile: false }],
        },
      ],
      patch: text,
    });
  });

  it('ends an update hunk at the next hunk header', () => {
    expect(parsePatch('*** Begin Patch\n*** Update File: file.py\n@@\n+line\n*** Add File: other.py\n+content\n*** End Patch', 'strict').hunks).toEqual([
      { type: 'update', path: 'file.py', movePath: null, chunks: [{ changeContext: null, oldLines: [], newLines: ['line'], isEndOfFile: false }] },
      { type: 'add', path: 'other.py', contents: 'content\n' },
    ]);
  });

  it('lets the first chunk omit its @@ line', () => {
    expect(parsePatch('*** Begin Patch\n*** Update File: file2.py\n import foo\n+bar\n*** End Patch', 'strict').hunks).toEqual([
      {
        type: 'update',
        path: 'file2.py',
        movePath: null,
        chunks: [{ changeContext: null, oldLines: ['import foo'], newLines: ['import foo', 'bar'], isEndOfFile: false }],
      },
    ]);
  });

  it('keeps absolute hunk paths as written', () => {
    expect(parsePatch('*** Begin Patch\n*** Delete File: /tmp/x/absolute-delete.py\n*** End Patch').hunks).toEqual([
      { type: 'delete', path: '/tmp/x/absolute-delete.py' },
    ]);
  });

  it('unwraps heredoc forms only when lenient, and only with matching quotes', () => {
    const body = '*** Begin Patch\n*** Update File: file2.py\n import foo\n+bar\n*** End Patch';
    const expected = {
      hunks: [
        {
          type: 'update',
          path: 'file2.py',
          movePath: null,
          chunks: [{ changeContext: null, oldLines: ['import foo'], newLines: ['import foo', 'bar'], isEndOfFile: false }],
        },
      ],
      patch: body,
    };
    for (const opener of ['<<EOF', "<<'EOF'", '<<"EOF"']) {
      const wrapped = `${opener}\n${body}\nEOF\n`;
      expect(parseError(() => parsePatch(wrapped, 'strict')).message).toBe(FIRST_LINE);
      expect(parsePatch(wrapped)).toEqual(expected);
    }
    expect(parseError(() => parsePatch(`<<"EOF'\n${body}\nEOF\n`)).message).toBe(FIRST_LINE);
    const unclosed = '<<EOF\n*** Begin Patch\n*** Update File: file2.py\nEOF\n';
    expect(parseError(() => parsePatch(unclosed, 'strict')).message).toBe(FIRST_LINE);
    expect(parseError(() => parsePatch(unclosed)).message).toBe(LAST_LINE);
  });

  it('names an unknown hunk header', () => {
    expect(parseError(() => parsePatch('*** Begin Patch\n*** Frobnicate File: foo\n*** End Patch'))).toEqual({
      message:
        "invalid hunk at line 2, '*** Frobnicate File: foo' is not a valid hunk header. Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'",
      report:
        "Invalid patch hunk on line 2: '*** Frobnicate File: foo' is not a valid hunk header. Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'",
    });
  });

  it('counts lines across earlier hunks in its messages', () => {
    const text = '*** Begin Patch\n*** Add File: a\n+1\n+2\n*** Update File: b\n@@\n-x\n@@ ctx\nbad\n*** End Patch';
    expect(parseError(() => parsePatch(text)).message).toBe(
      "invalid hunk at line 9, Unexpected line found in update hunk: 'bad'. Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)",
    );
  });
});

describe('parseUpdateFileChunk', () => {
  it('gives the reference errors, at the reference line numbers', () => {
    expect(parseError(() => parseUpdateFileChunk(['bad'], 123, false)).message).toBe(
      "invalid hunk at line 123, Expected update hunk to start with a @@ context marker, got: 'bad'",
    );
    expect(parseError(() => parseUpdateFileChunk(['@@'], 123, false)).message).toBe(
      'invalid hunk at line 124, Update hunk does not contain any lines',
    );
    expect(parseError(() => parseUpdateFileChunk(['@@', 'bad'], 123, false)).message).toBe(
      "invalid hunk at line 124, Unexpected line found in update hunk: 'bad'. Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)",
    );
    expect(parseError(() => parseUpdateFileChunk(['@@', '*** End of File'], 123, false)).message).toBe(
      'invalid hunk at line 124, Update hunk does not contain any lines',
    );
  });

  it('reads context, removed, added and empty lines up to the next marker', () => {
    expect(parseUpdateFileChunk(['@@ change_context', '', ' context', '-remove', '+add', ' context2', '*** End Patch'], 123, false)).toEqual({
      chunk: {
        changeContext: 'change_context',
        oldLines: ['', 'context', 'remove', 'context2'],
        newLines: ['', 'context', 'add', 'context2'],
        isEndOfFile: false,
      },
      consumed: 6,
    });
  });

  it('marks a chunk followed by *** End of File', () => {
    expect(parseUpdateFileChunk(['@@', '+line', '*** End of File'], 123, false)).toEqual({
      chunk: { changeContext: null, oldLines: [], newLines: ['line'], isEndOfFile: true },
      consumed: 3,
    });
  });
});
