// applyPatch end to end on a temp directory: the reference's apply tests from
// codex-rs/apply-patch/src/lib.rs and tests/suite/tool.rs (summaries, failure texts, CRLF),
// the unified diffs its `fileChange` items carry, and the all-or-nothing rule of thread-host.
import { readFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PatchApplyError } from '../../../../../src/main/tools/patch/patch-apply-error.js';
import { applyPatch, failureReport, previewPatch } from '../../../../../src/main/tools/patch/patch-applier.js';
import { PatchParseError } from '../../../../../src/main/tools/patch/patch-parse-error.js';
import { makePatchDir, wrapPatch, type PatchDir } from '../../../../helpers/patch-dir.js';

let dir: PatchDir;
beforeEach(async () => {
  dir = await makePatchDir();
});
afterEach(async () => {
  await dir.remove();
});

async function failure(patch: string): Promise<string> {
  const error = await applyPatch(patch, dir.root).then(
    () => null,
    (caught: unknown) => caught,
  );
  if (error instanceof PatchApplyError || error instanceof PatchParseError) return failureReport(error);
  throw new Error(`expected a patch failure, got ${String(error)}`);
}

describe('applyPatch', () => {
  it('adds, updates and deletes, and reports them as the reference does', async () => {
    await dir.seed({ 'modify.txt': 'line1\nline2\n', 'delete.txt': 'obsolete\n' });
    const patch =
      '*** Begin Patch\n*** Add File: nested/new.txt\n+created\n*** Delete File: delete.txt\n*** Update File: modify.txt\n@@\n-line2\n+changed\n*** End Patch';
    expect(await applyPatch(patch, dir.root)).toEqual({
      changes: [
        { path: dir.abs('nested/new.txt'), kind: { type: 'add' }, diff: 'created\n' },
        { path: dir.abs('delete.txt'), kind: { type: 'delete' }, diff: 'obsolete\n' },
        { path: dir.abs('modify.txt'), kind: { type: 'update', move_path: null }, diff: '@@ -1,2 +1,2 @@\n line1\n-line2\n+changed\n' },
      ],
      summary: 'Success. Updated the following files:\nA nested/new.txt\nM modify.txt\nD delete.txt\n',
    });
    expect(await dir.files()).toEqual({ 'modify.txt': 'line1\nchanged\n', 'nested/new.txt': 'created\n' });
  });

  it('moves a file to a new directory, naming the destination in the summary', async () => {
    await dir.seed({ 'old/name.txt': 'old content\n' });
    const patch = wrapPatch('*** Update File: old/name.txt\n*** Move to: renamed/dir/name.txt\n@@\n-old content\n+new content');
    expect(await applyPatch(patch, dir.root)).toEqual({
      changes: [
        {
          path: dir.abs('old/name.txt'),
          kind: { type: 'update', move_path: dir.abs('renamed/dir/name.txt') },
          diff: '@@ -1 +1 @@\n-old content\n+new content\n',
        },
      ],
      summary: 'Success. Updated the following files:\nM renamed/dir/name.txt\n',
    });
    expect(await dir.files()).toEqual({ 'renamed/dir/name.txt': 'new content\n' });
  });

  it('uses context lines and @@ headers to place chunks', async () => {
    await dir.seed({ 'code.py': 'class A:\n    def f():\n        pass\nclass B:\n    def f():\n        pass\n' });
    const patch = wrapPatch('*** Update File: code.py\n@@ class B:\n     def f():\n-        pass\n+        return 1');
    expect((await applyPatch(patch, dir.root)).summary).toBe('Success. Updated the following files:\nM code.py\n');
    expect(await dir.files()).toEqual({ 'code.py': 'class A:\n    def f():\n        pass\nclass B:\n    def f():\n        return 1\n' });
  });

  it('keeps absolute paths and resolves relative ones against the cwd', async () => {
    await dir.seed({ 'a.txt': 'a\n' });
    const patch = wrapPatch(`*** Delete File: ${dir.abs('a.txt')}\n*** Add File: b.txt\n+b`);
    expect((await applyPatch(patch, dir.root)).summary).toBe(`Success. Updated the following files:\nA b.txt\nD ${dir.abs('a.txt')}\n`);
    expect(await dir.files()).toEqual({ 'b.txt': 'b\n' });
  });

  it('applies several chunks of one file, interleaved with an addition at the end', async () => {
    await dir.seed({ 'interleaved.txt': 'a\nb\nc\nd\ne\nf\n' });
    const patch = wrapPatch('*** Update File: interleaved.txt\n@@\n a\n-b\n+B\n@@\n c\n d\n-e\n+E\n@@\n f\n+g\n*** End of File');
    expect(await applyPatch(patch, dir.root)).toEqual({
      changes: [
        {
          path: dir.abs('interleaved.txt'),
          kind: { type: 'update', move_path: null },
          diff: '@@ -1,6 +1,7 @@\n a\n-b\n+B\n c\n d\n-e\n+E\n f\n+g\n',
        },
      ],
      summary: 'Success. Updated the following files:\nM interleaved.txt\n',
    });
    expect(await dir.files()).toEqual({ 'interleaved.txt': 'a\nB\nc\nd\nE\nf\ng\n' });
  });

  it('puts a pure addition chunk at the end even before a later removal', async () => {
    await dir.seed({ 'panic.txt': 'line1\nline2\nline3\n' });
    const patch = wrapPatch('*** Update File: panic.txt\n@@\n+after-context\n+second-line\n@@\n line1\n-line2\n-line3\n+line2-replacement');
    await applyPatch(patch, dir.root);
    expect(await dir.files()).toEqual({ 'panic.txt': 'line1\nline2-replacement\nafter-context\nsecond-line\n' });
  });

  it('matches ASCII context against typographic punctuation and loose whitespace', async () => {
    await dir.seed({
      'unicode.py': 'import asyncio  # local import \u2013 avoids top\u2011level dep\n',
      'spaces.txt': '  indented  \nnext\n',
    });
    const patch = wrapPatch(
      '*** Update File: unicode.py\n@@\n-import asyncio  # local import - avoids top-level dep\n+import asyncio  # HELLO\n*** Update File: spaces.txt\n@@\n-indented\n+flat\n next',
    );
    expect((await applyPatch(patch, dir.root)).summary).toBe('Success. Updated the following files:\nM unicode.py\nM spaces.txt\n');
    expect(await dir.files()).toEqual({ 'unicode.py': 'import asyncio  # HELLO\n', 'spaces.txt': 'flat\nnext\n' });
  });

  it('lets a later hunk see an earlier hunk of the same patch', async () => {
    const patch = wrapPatch('*** Add File: a.txt\n+one\n*** Update File: a.txt\n@@\n-one\n+two');
    expect(await applyPatch(patch, dir.root)).toEqual({
      changes: [
        { path: dir.abs('a.txt'), kind: { type: 'add' }, diff: 'one\n' },
        { path: dir.abs('a.txt'), kind: { type: 'update', move_path: null }, diff: '@@ -1 +1 @@\n-one\n+two\n' },
      ],
      summary: 'Success. Updated the following files:\nA a.txt\nM a.txt\n',
    });
    expect(await dir.files()).toEqual({ 'a.txt': 'two\n' });
  });

  it('previews without writing', async () => {
    await dir.seed({ 'a.txt': 'x\n' });
    expect(await previewPatch(wrapPatch('*** Update File: a.txt\n@@\n-x\n+y'), dir.root)).toEqual([
      { path: dir.abs('a.txt'), kind: { type: 'update', move_path: null }, diff: '@@ -1 +1 @@\n-x\n+y\n' },
    ]);
    expect(await dir.files()).toEqual({ 'a.txt': 'x\n' });
  });
});

describe('a patch that does not apply', () => {
  it('changes nothing when its last hunk fails', async () => {
    await dir.seed({ 'a.txt': 'alpha\n', 'b.txt': 'beta\n', 'gone.txt': 'bye\n' });
    const patch = wrapPatch(
      '*** Add File: new/c.txt\n+gamma\n*** Update File: a.txt\n@@\n-alpha\n+ALPHA\n*** Delete File: gone.txt\n*** Update File: b.txt\n@@\n-missing\n+x',
    );
    expect(await failure(patch)).toBe(`Failed to find expected lines in ${dir.abs('b.txt')}:\nmissing\n`);
    expect(await dir.files()).toEqual({ 'a.txt': 'alpha\n', 'b.txt': 'beta\n', 'gone.txt': 'bye\n' });
  });

  it('reports the reference texts', async () => {
    await dir.seed({ 'modify.txt': 'line1\nline2\n', 'dir/foo.txt': 'stable\n' });
    expect(await failure('*** Begin Patch\n*** End Patch')).toBe('No files were modified.\n');
    expect(await failure(wrapPatch('*** Delete File: missing.txt'))).toBe(`Failed to delete file ${dir.abs('missing.txt')}\n`);
    expect(await failure(wrapPatch('*** Delete File: dir'))).toBe(`Failed to delete file ${dir.abs('dir')}\n`);
    expect(await failure(wrapPatch('*** Update File: missing.txt\n@@\n-old\n+new'))).toBe(
      `Failed to read file to update ${dir.abs('missing.txt')}: No such file or directory (os error 2)\n`,
    );
    expect(await failure(wrapPatch('*** Update File: modify.txt\n@@ nowhere\n-line1\n+x'))).toBe(
      `Failed to find context 'nowhere' in ${dir.abs('modify.txt')}\n`,
    );
    expect(await failure(wrapPatch('*** Update File: modify.txt\n@@\n-missing\n+changed'))).toBe(
      `Failed to find expected lines in ${dir.abs('modify.txt')}:\nmissing\n`,
    );
    expect(await failure(wrapPatch('*** Update File: foo.txt'))).toBe(
      "Invalid patch hunk on line 2: Update file hunk for path 'foo.txt' is empty\n",
    );
    expect(await failure(wrapPatch('*** Add File: dir\n+x'))).toBe(`Failed to write file ${dir.abs('dir')}\n`);
    expect(await dir.files()).toEqual({ 'modify.txt': 'line1\nline2\n', 'dir/foo.txt': 'stable\n' });
  });

  it('refuses to update a file that is not UTF-8', async () => {
    await dir.seed({ 'bin.dat': Buffer.from([0xff, 0xfe, 0x0a]) });
    expect(await failure(wrapPatch('*** Update File: bin.dat\n@@\n-x\n+y'))).toBe(
      `Failed to read file to update ${dir.abs('bin.dat')}: stream did not contain valid UTF-8\n`,
    );
  });
});

describe('line endings', () => {
  async function applied(name: string, original: string, body: string): Promise<string> {
    await dir.seed({ [name]: original });
    await applyPatch(wrapPatch(`*** Update File: ${name}\n${body}`), dir.root);
    return readFile(dir.abs(name), 'latin1');
  }

  it('keeps a CRLF file CRLF, added lines included', async () => {
    expect(await applied('crlf.txt', 'one\r\ntwo\r\nthree\r\n', '@@\n-one\n+uno\n@@\n two\n+\n+between\n three')).toBe(
      'uno\r\ntwo\r\n\r\nbetween\r\nthree\r\n',
    );
  });

  it('keeps the order of repeated lines', async () => {
    expect(await applied('repeated.txt', 'a\nb\n', '@@\n-a\n-b\n+b\n+b\n+a')).toBe('b\nb\na\n');
  });

  it('keeps a context line its own ending', async () => {
    expect(await applied('repeated_context.txt', 'same\r\nsame\n', '@@\n-same\n same')).toBe('same\n');
  });

  it('leaves untouched lines of a mixed file alone', async () => {
    expect(await applied('mixed.txt', 'one\r\ntwo\nthree\r\nfour\n', '@@\n one\n two\n-three\n+THREE\n four')).toBe(
      'one\r\ntwo\nTHREE\r\nfour\n',
    );
  });

  it('ends an unterminated last line with the file ending', async () => {
    expect(await applied('no_trailing_newline.txt', 'one\r\ntwo', '@@\n-one\n+ONE')).toBe('ONE\r\ntwo\r\n');
  });
});
