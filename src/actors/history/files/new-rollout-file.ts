// A rollout file a fork or a revert starts: created, never overwritten, and durable before the
// request is answered, since its first lines are all it holds until its first turn.
import { mkdir, open } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Writes `lines` as the new file at `path`, which must not exist yet, and syncs it. */
export async function writeNewRolloutFile(path: string, lines: readonly string[]): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const file = await open(path, 'wx');
  try {
    await file.writeFile(`${lines.join('\n')}\n`);
    await file.sync();
  } finally {
    await file.close();
  }
}
