// Opt-in (`npm run test:clients`): `codex archive`, `codex unarchive` and `codex delete --force`
// with `--remote` (codex-cli 0.171.0) against thread-host over WebSocket and a unix socket:
// each moves or removes the thread thread-host lists and its rollout, and a second archive or
// delete fails as it fails against the reference.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { referenceAndMock } from '../interop/reference-and-mock.js';
import { CodexCli, execThreadId } from './codex-cli.js';
import { startHost, TRANSPORTS, type HostUnderTest } from './host-under-test.js';

const reference = referenceAndMock();

/** The ids thread-host lists, active and archived, and the rollouts in its home. */
async function listed(host: HostUnderTest): Promise<{ active: string[]; archived: string[]; rollouts: string[] }> {
  const ids = async (archived: boolean): Promise<string[]> =>
    (await host.control.request('thread/list', { archived })).data.map((thread: { id: string }) => thread.id);
  const rollouts = ['sessions', 'archived_sessions'].flatMap((folder) => {
    try {
      return readdirSync(join(host.server.home, folder), { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.jsonl')).map((file) => `${folder}/${file.replace(/^.*\//, '')}`);
    } catch {
      return [];
    }
  });
  return { active: await ids(false), archived: await ids(true), rollouts };
}

describe.each(TRANSPORTS)('over %s', (transport) => {
  test('codex archive, unarchive and delete --force', async () => {
    const host = await startHost(transport, { modelUrl: reference.mock.url });
    const cli = new CodexCli(reference.codex);
    const id = execThreadId(await cli.run(['exec', '--remote', host.remote, 'a thread to archive']));
    const rollout = (await listed(host)).rollouts[0]!.replace(/^sessions\//, '');
    expect(await listed(host)).toEqual({ active: [id], archived: [], rollouts: [`sessions/${rollout}`] });

    const session = (command: string, ...args: string[]) => cli.run([command, '--remote', host.remote, ...args, id]);
    expect(await session('archive')).toEqual({ code: 0, stdout: `Archived session ${id}.\n`, stderr: '' });
    expect(await listed(host)).toEqual({ active: [], archived: [id], rollouts: [`archived_sessions/${rollout}`] });
    expect(await session('archive')).toEqual({ code: 1, stdout: '', stderr: 'Error: failed to archive session\n' });

    expect(await session('unarchive')).toEqual({ code: 0, stdout: `Unarchived session ${id}.\n`, stderr: '' });
    expect(await listed(host)).toEqual({ active: [id], archived: [], rollouts: [`sessions/${rollout}`] });

    expect(await session('delete', '--force')).toEqual({ code: 0, stdout: `Deleted session ${id}.\n`, stderr: '' });
    expect(await listed(host)).toEqual({ active: [], archived: [], rollouts: [] });
    expect(await session('delete', '--force')).toEqual({ code: 1, stdout: '', stderr: 'Error: failed to delete session\n' });
    expect(await session('unarchive')).toEqual({ code: 1, stdout: '', stderr: 'Error: failed to unarchive session\n' });
    expect(await host.server.stop()).toBe(0);
  });
});
