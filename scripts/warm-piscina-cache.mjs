// Run by scripts/bundle.mjs: loads piscina's bundle (dist/bundle/piscina/index.js) the way a
// bundled host does (src/main/code-cache.ts), runs one task on a one-worker pool, and, as the
// process exits, writes V8's code cache of what that compiled beside the bundle. A host then
// loads piscina at its first thread/start without compiling most of it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { compileBundle, runBundle, writeCodeCache } from '../dist/src/main/code-cache.js';

const bundle = resolve(process.argv[2]);
const { script } = compileBundle(bundle);
const { Piscina } = runBundle(bundle, script);
const dir = mkdtempSync(join(tmpdir(), 'thread-host-piscina-'));
try {
  const task = join(dir, 'double.cjs');
  writeFileSync(task, 'module.exports = (n) => n * 2;\n');
  const pool = new Piscina({ filename: task, minThreads: 1, maxThreads: 1, atomics: 'disabled', concurrentTasksPerWorker: 1 });
  const doubled = await pool.run(21);
  await pool.destroy();
  if (doubled !== 42) throw new Error(`the warm-up task returned ${doubled}`);
  writeCodeCache(bundle, script);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
