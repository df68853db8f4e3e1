// A local image's bytes, read as codex 0.171.0 reads them, with its error texts (Rust's io
// error Display): a missing file, a directory, a file past the 1 GiB guard. Where the
// reference would wait forever (a FIFO with no writer), the file is refused instead: it is
// opened without blocking and read only if it is a regular file.
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { ioErrorText } from '../../common/io-error-text.js';
import { MAX_IMAGE_INPUT_BYTES } from './image-data-url.js';

export type LocalImageFile = { kind: 'bytes'; bytes: Buffer } | { kind: 'unreadable'; reason: string };

export async function readLocalImage(path: string): Promise<LocalImageFile> {
  try {
    const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const stat = await handle.stat();
      // A directory's read fails as the reference's does ("Is a directory").
      if (!stat.isFile() && !stat.isDirectory()) return { kind: 'unreadable', reason: 'local image path is not a regular file' };
      if (stat.size > MAX_IMAGE_INPUT_BYTES) return tooLarge();
      const bytes = await handle.readFile();
      return bytes.length > MAX_IMAGE_INPUT_BYTES ? tooLarge() : { kind: 'bytes', bytes };
    } finally {
      await handle.close();
    }
  } catch (error) {
    return { kind: 'unreadable', reason: ioErrorText(error) };
  }
}

function tooLarge(): LocalImageFile {
  return { kind: 'unreadable', reason: `image input exceeds ${MAX_IMAGE_INPUT_BYTES} bytes` };
}
