// thread/start's `permissions`, a named permission profile in place of `sandbox`, as codex-cli
// 0.171.0 answers it (probed): the built-in `:read-only`, `:workspace` and
// `:danger-full-access` give that sandbox and show as the active profile; anything else, or
// both fields, is refused with the reference's texts. The reference's TUI names `:read-only`
// for the thread it writes titles with.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { TestServer } from '../helpers/test-server.js';

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel({ reply: 'Done' });
});
afterAll(() => mock.close());

test('a built-in profile sets the sandbox; any other profile, or one beside sandbox, is refused', async () => {
  const server = await TestServer.start({ modelUrl: mock.url });
  try {
    const shown = [];
    for (const permissions of [':read-only', ':workspace', ':danger-full-access']) {
      const { sandbox, activePermissionProfile } = await server.request('thread/start', { permissions });
      shown.push({ type: sandbox.type, activePermissionProfile });
    }
    expect(shown).toEqual([
      { type: 'readOnly', activePermissionProfile: { id: ':read-only', extends: null } },
      { type: 'workspaceWrite', activePermissionProfile: { id: ':workspace', extends: null } },
      { type: 'dangerFullAccess', activePermissionProfile: { id: ':danger-full-access', extends: null } },
    ]);
    const refusals = [];
    for (const params of [{ permissions: ':workspace-write' }, { permissions: 'mine' }, { permissions: ':read-only', sandbox: 'workspace-write' }]) {
      refusals.push((await server.requestRaw('thread/start', params)).error);
    }
    expect(refusals).toEqual([
      { code: -32600, message: 'failed to load configuration: default_permissions refers to unknown built-in profile `:workspace-write`' },
      { code: -32600, message: 'failed to load configuration: default_permissions requires a `[permissions]` table' },
      { code: -32600, message: '`permissions` cannot be combined with `sandbox`' },
    ]);
    expect((await server.request('thread/start', {})).activePermissionProfile).toBe(null);
  } finally {
    await server.close();
  }
});
