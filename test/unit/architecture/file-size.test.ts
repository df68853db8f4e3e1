// Small files with one noun each: a file in src/ or workers/ past 400 lines has grown a second
// noun, and is split where it did (the thread actor was 723 lines before its running turn and
// history backend became files of their own).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { sourceFiles } from '../../helpers/import-graph.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const MAX_LINES = 400;

test(`no file in src/ or workers/ is over ${MAX_LINES} lines`, () => {
  const long = sourceFiles(ROOT, ['src', 'workers'])
    .map((path) => ({ path, lines: readFileSync(join(ROOT, path), 'utf8').split('\n').length - 1 }))
    .filter((file) => file.lines > MAX_LINES);
  expect(long).toEqual([]);
});
