// The reference's scenario fixtures (test/fixtures/apply-patch/SOURCE.md): copy `input/` to a
// temp directory, apply `patch.txt` there, and compare the whole tree with `expected/`, as
// codex-rs/apply-patch/tests/suite/scenarios.rs does. Failures are part of a scenario, so the
// outcome of the call is not asserted here (the applier tests check the texts).
import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { applyPatch } from '../../../../../src/main/tools/patch/patch-applier.js';

const SCENARIOS = fileURLToPath(new URL('../../../../fixtures/apply-patch/scenarios/', import.meta.url));

// Where thread-host means to differ: the reference keeps the first hunk's file when the
// second fails; here a patch that does not apply leaves the tree as it was.
const OVERRIDES: Readonly<Record<string, Record<string, string>>> = {
  '015_failure_after_partial_success_leaves_changes': {},
};

async function snapshot(root: string): Promise<Record<string, string>> {
  const entries: Record<string, string> = {};
  const walk = async (dir: string, prefix: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const rel = `${prefix}${entry.name}`;
      if (entry.isDirectory()) {
        entries[`${rel}/`] = '<dir>';
        await walk(join(dir, entry.name), `${rel}/`);
      } else {
        entries[rel] = await readFile(join(dir, entry.name), 'utf8');
      }
    }
  };
  await walk(root, '');
  return entries;
}

const temps: string[] = [];
afterEach(async () => {
  for (const dir of temps.splice(0)) await rm(dir, { recursive: true, force: true });
});

const names = (await readdir(SCENARIOS)).sort();

describe('the reference scenarios', () => {
  it('are all present', () => {
    expect(names.length).toBe(23);
  });

  it.each(names)('%s', async (name) => {
    const dir = join(SCENARIOS, name);
    const work = await mkdtemp(join(tmpdir(), 'apply-patch-'));
    temps.push(work);
    await cp(join(dir, 'input'), work, { recursive: true }).catch(() => undefined);
    const patch = await readFile(join(dir, 'patch.txt'), 'utf8');
    await applyPatch(patch, work).catch(() => undefined);
    const expected = OVERRIDES[name] ?? (await snapshot(join(dir, 'expected')));
    expect(await snapshot(work)).toEqual(expected);
  });
});
