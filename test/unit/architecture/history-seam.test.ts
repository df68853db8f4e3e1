// The worker asks where a thread's history lives in one place: the history backend factory and
// the backends it opens. Anywhere else in src/actors/, code that compared a location's `store`
// would be a second switch over the stores, which the backend seam exists to avoid.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { sourceFiles } from '../../helpers/import-graph.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const STORE_TEST = /\.store\s*[!=]==/;
const MAY_ASK = ['src/actors/history/open-history-backend.ts', 'src/actors/history/ephemeral-backend.ts', 'src/actors/history/files/', 'src/actors/history/postgres/'];

test('only the history backend factory and the backends look at a location\'s store', () => {
  const asking = sourceFiles(ROOT, ['src/actors', 'workers'])
    .filter((path) => STORE_TEST.test(readFileSync(join(ROOT, path), 'utf8')))
    .filter((path) => !MAY_ASK.some((allowed) => path === allowed || (allowed.endsWith('/') && path.startsWith(allowed))));
  expect(asking).toEqual([]);
});

test('no file in src/actors/ or workers/ is over 400 lines', () => {
  const long = sourceFiles(ROOT, ['src/actors', 'workers'])
    .map((path) => ({ path, lines: readFileSync(join(ROOT, path), 'utf8').split('\n').length - 1 }))
    .filter((file) => file.lines > 400);
  expect(long).toEqual([]);
});
