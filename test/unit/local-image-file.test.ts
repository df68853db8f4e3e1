// A local image's read: its bytes, or the reference's error texts, and a FIFO refused at once
// instead of waiting for a writer (docs/tools.md, "Images").
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync, ftruncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { readLocalImage } from '../../src/actors/turn/local-image-file.js';

const dir = mkdtempSync(join(tmpdir(), 'thread-host-local-image-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('a file, a missing one, a directory, one past 1 GiB, a FIFO', async () => {
  writeFileSync(join(dir, 'a.png'), 'bytes');
  // Sparse: the size is past the guard, the disk holds nothing.
  const fd = openSync(join(dir, 'huge.png'), 'w');
  ftruncateSync(fd, 1024 * 1024 * 1024 + 1);
  closeSync(fd);
  execFileSync('mkfifo', [join(dir, 'fifo.png')]);
  expect(await readLocalImage(join(dir, 'a.png'))).toEqual({ kind: 'bytes', bytes: Buffer.from('bytes') });
  expect(await readLocalImage(join(dir, 'missing.png'))).toEqual({ kind: 'unreadable', reason: 'No such file or directory (os error 2)' });
  expect(await readLocalImage(dir)).toEqual({ kind: 'unreadable', reason: 'Is a directory (os error 21)' });
  expect(await readLocalImage(join(dir, 'huge.png'))).toEqual({ kind: 'unreadable', reason: 'image input exceeds 1073741824 bytes' });
  expect(await readLocalImage(join(dir, 'fifo.png'))).toEqual({ kind: 'unreadable', reason: 'local image path is not a regular file' });
});
