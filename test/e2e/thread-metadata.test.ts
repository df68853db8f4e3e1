// thread/metadata/update as codex-cli 0.171.0 answers it
// (test/fixtures/reference-answers/thread-metadata.jsonl, replayed on thread-host with the same
// setup): a loaded, a stored and another process's thread patched, bad patches refused, the
// result shown by read, list and resume, and, after a restart, by the list of a new process; on
// either thread store (on PostgreSQL, "another process" is another host of the store).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { readRecording, replay } from '../helpers/reference-replay.js';
import { TestServer, type Message } from '../helpers/test-server.js';
import { storeRootConfig, THREAD_STORES } from '../helpers/thread-stores.js';

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel();
});
afterAll(() => mock.close());

const shown = (t: Message) => ({ id: t.id, gitInfo: t.gitInfo, daybreakEnabled: t.daybreakEnabled, projectId: t.projectId, status: t.status });
const project = (method: string, result: Message) => (method === 'thread/list' ? { data: result.data.map(shown) } : { thread: shown(result.thread) });

async function started(server: TestServer, text: string): Promise<string> {
  const { thread } = await server.request('thread/start', {});
  const { turn } = await server.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text }] });
  await server.waitForNotification('turn/completed', (p: Message) => p.turn.id === turn.id);
  return thread.id;
}

describe.each(THREAD_STORES)('%s store', (store) => {
  test('metadata updates answer as the reference does and last through a restart', async () => {
    const home = mkdtempSync(join(tmpdir(), 'thread-host-metadata-'));
    try {
      const steps = readRecording('thread-metadata.jsonl');
      const server = await TestServer.start({ home, modelUrl: mock.url, rootConfig: await storeRootConfig(store, 'thread_unload_delay_secs = 0') });
      const other = await TestServer.start({ home, keepConfig: true });
      const ids = { '<loaded>': await started(server, '<loaded>'), '<stored>': await started(server, '<stored>'), '<other>': await started(other, '<other>') };
      await server.request('thread/unsubscribe', { threadId: ids['<stored>'] });
      await server.waitForNotification('thread/closed', (p: Message) => p.threadId === ids['<stored>']);
      await replay(steps.slice(0, -1), { server, home, ids, project });
      expect(await server.close()).toBe(0);
      expect(await other.close()).toBe(0);

      const restarted = await TestServer.start({ home, keepConfig: true });
      await replay(steps.slice(-1), { server: restarted, home, ids, project });
      expect(await restarted.close()).toBe(0);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
