// Which store the host runs on is decided once: the composition root opens one
// (src/main/host/open-store.ts), and everything else asks it through the ThreadStore seam
// (src/main/store/thread-store.ts) or, in a worker, through the backend opened from a location
// (src/actors/history/, src/stored-reads/stored-source.ts). A branch on the store outside those
// rooms is the seam leaking: a third store would have to touch it. This test finds such
// branches in the code (comments aside) and names them.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { sourceFiles } from '../../helpers/import-graph.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Where a store may be told apart: the stores themselves, and the places that choose one. */
const STORE_ROOMS = [
  // The stores, at each end: the host's side, the workers' backends, the shared statements.
  /^src\/main\/store\//,
  /^src\/actors\/history\//,
  /^src\/stored-reads\/stored-source\.ts$/,
  /^src\/stored-reads\/postgres\//,
  /^src\/common\/postgres\//,
  /^src\/common\/history-location\.ts$/,
  // The composition root and the configuration it reads.
  /^src\/main\/host\/open-store\.ts$/,
  /^src\/main\/host\/startup-config\.ts$/,
  /^src\/main\/config\/thread-store-config\.ts$/,
  // `thread-host fleet import|export`: moves threads from one store to the other.
  /^src\/main\/commands\/fleet\//,
];

/** What a branch on the store looks like in this code base. */
const STORE_BRANCHES = [
  /\.store\s*[!=]==\s*'/,
  /\bkind\s*[!=]==\s*'(files|postgres)'/,
  /\.postgres\b/,
  /\bfleet\?\./,
  /\?\?\s*new\s+Files/,
];

/** `file:line: code` for every line of `text` (comments aside) that branches on the store. */
function storeBranches(file: string, text: string): string[] {
  return text
    .split('\n')
    .map((line, index) => ({ line, number: index + 1 }))
    .filter(({ line }) => !/^\s*(\/\/|\*|\/\*)/.test(line))
    .filter(({ line }) => STORE_BRANCHES.some((pattern) => pattern.test(line.replace(/\/\/.*$/, ''))))
    .map(({ line, number }) => `${file}:${number}: ${line.trim()}`);
}

function leaks(files: Array<{ file: string; text: string }>): string[] {
  return files.filter(({ file }) => !STORE_ROOMS.some((room) => room.test(file))).flatMap(({ file, text }) => storeBranches(file, text));
}

describe('the store seam', () => {
  test('no code outside the stores and the composition root branches on which store it runs on', () => {
    const files = sourceFiles(ROOT, ['src', 'workers']).map((file) => ({ file, text: readFileSync(`${ROOT}${file}`, 'utf8') }));
    expect(leaks(files)).toEqual([]);
  });
});

describe('the checker itself', () => {
  test('catches a planted branch of each kind outside the stores, and none inside them or in comments', () => {
    const planted = [
      "  if (location.store === 'files') return location.path;",
      "  if (ctx.startup.threadStore.kind !== 'postgres') return 'run';",
      '  const connection = ctx.store.postgres;',
      '  const locks = fleet?.locks ?? buildLocks();',
      '  const names = given ?? new FilesThreadNames(home);',
    ];
    const outside = planted.map((line, i) => ({ file: `src/main/handlers/planted-${i}.ts`, text: `// a handler\n${line}\n` }));
    const inside = planted.map((line, i) => ({ file: `src/main/store/files/planted-${i}.ts`, text: line }));
    const commented = [{ file: 'src/main/handlers/commented.ts', text: "// if (location.store === 'files')\n * fleet?.locks\nconst x = 1; // kind === 'files'\n" }];
    expect(leaks([...outside, ...inside, ...commented])).toEqual(planted.map((line, i) => `src/main/handlers/planted-${i}.ts:2: ${line.trim()}`));
  });
});
