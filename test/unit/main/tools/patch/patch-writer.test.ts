// The writes: temp files beside their targets renamed into place, nothing left behind, modes
// and symlinks kept, and a failure during the renames naming what was already changed.
import { chmod, mkdir, readlink, stat, symlink } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PatchApplyError } from '../../../../../src/main/tools/patch/patch-apply-error.js';
import { applyPatch } from '../../../../../src/main/tools/patch/patch-applier.js';
import { parsePatch } from '../../../../../src/main/tools/patch/patch-parser.js';
import { planPatch } from '../../../../../src/main/tools/patch/patch-plan.js';
import { writePlannedFiles } from '../../../../../src/main/tools/patch/patch-writer.js';
import { makePatchDir, wrapPatch, type PatchDir } from '../../../../helpers/patch-dir.js';

let dir: PatchDir;
beforeEach(async () => {
  dir = await makePatchDir();
});
afterEach(async () => {
  await dir.remove();
});

describe('writePlannedFiles', () => {
  it('keeps the mode of a replaced file', async () => {
    await dir.seed({ 'run.sh': 'echo a\n' });
    await chmod(dir.abs('run.sh'), 0o751);
    await applyPatch(wrapPatch('*** Update File: run.sh\n@@\n-echo a\n+echo b'), dir.root);
    expect({ mode: (await stat(dir.abs('run.sh'))).mode & 0o7777, files: await dir.files() }).toEqual({
      mode: 0o751,
      files: { 'run.sh': 'echo b\n' },
    });
  });

  it('writes through a symlink and keeps the link', async () => {
    await dir.seed({ 'real.txt': 'x\n' });
    await symlink('real.txt', dir.abs('link.txt'));
    await applyPatch(wrapPatch('*** Update File: link.txt\n@@\n-x\n+y'), dir.root);
    expect({ link: await readlink(dir.abs('link.txt')), files: await dir.files() }).toEqual({
      link: 'real.txt',
      files: { 'real.txt': 'y\n' },
    });
  });

  it('names the files already changed when a rename fails midway', async () => {
    await dir.seed({ 'a.txt': 'a\n' });
    const plan = await planPatch(parsePatch(wrapPatch('*** Update File: a.txt\n@@\n-a\n+A\n*** Add File: b/c.txt\n+c')), dir.root);
    // After planning, something else puts a directory where the new file goes.
    await mkdir(dir.abs('b/c.txt'), { recursive: true });
    const error = await writePlannedFiles(plan.files).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PatchApplyError);
    expect({ message: (error as PatchApplyError).message, changed: (error as PatchApplyError).changedPaths }).toEqual({
      message: `Failed to write file ${dir.abs('b/c.txt')}`,
      changed: [dir.abs('a.txt')],
    });
    // The failed file's temporary is gone; the earlier file stays written.
    expect(await dir.files()).toEqual({ 'a.txt': 'A\n' });
  });
});
