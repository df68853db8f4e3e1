// A temporary directory for patch tests, with the files in it as a flat map of relative paths.
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** One test's directory: seed it, read it back, remove it. */
export interface PatchDir {
  root: string;
  abs(rel: string): string;
  seed(files: Record<string, string | Buffer>): Promise<void>;
  /** Every file under the root (temp files included), by relative path, as UTF-8 text. */
  files(): Promise<Record<string, string>>;
  remove(): Promise<void>;
}

export async function makePatchDir(): Promise<PatchDir> {
  const root = await mkdtemp(join(tmpdir(), 'apply-patch-'));
  const abs = (rel: string): string => join(root, rel);
  return {
    root,
    abs,
    async seed(files) {
      for (const [rel, contents] of Object.entries(files)) {
        await mkdir(dirname(abs(rel)), { recursive: true });
        await writeFile(abs(rel), contents);
      }
    },
    async files() {
      const out: Record<string, string> = {};
      for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
        if (entry.isFile()) out[join(entry.parentPath, entry.name).slice(root.length + 1)] = await readFile(join(entry.parentPath, entry.name), 'utf8');
      }
      return out;
    },
    remove: () => rm(root, { recursive: true, force: true }),
  };
}

/** The patch envelope around `body`, as the reference tests' `wrap_patch`. */
export function wrapPatch(body: string): string {
  return `*** Begin Patch\n${body}\n*** End Patch`;
}
