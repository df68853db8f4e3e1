// thread/readState/update, and the readState of thread/read and thread/list, as codex-cli
// 0.171.0 answers them (test/fixtures/reference-answers/thread-read-state.jsonl): the same
// scenario (test/helpers/read-state-scenario.ts) on thread-host gives the same transcript,
// across an unload and a restart, on either thread store; the state is in thread-host's own
// file in the home, or in the PostgreSQL store's threads table.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { readStateScenario } from '../helpers/read-state-scenario.js';
import { TestServer } from '../helpers/test-server.js';
import { storeRootConfig, THREAD_STORES } from '../helpers/thread-stores.js';

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel();
});
afterAll(() => mock.close());

const recording = () =>
  readFileSync(new URL('../fixtures/reference-answers/thread-read-state.jsonl', import.meta.url), 'utf8').trim().split('\n').map((line) => JSON.parse(line));

describe.each(THREAD_STORES)('%s store', (store) => {
  test('read states answer as the reference does and last through an unload and a restart', async () => {
    const home = mkdtempSync(join(tmpdir(), 'thread-host-read-state-'));
    try {
      let first = true;
      const rootConfig = await storeRootConfig(store, 'thread_unload_delay_secs = 0');
      const lines = await readStateScenario({
        mock,
        start: () => {
          const options = first ? { home, modelUrl: mock.url, rootConfig } : { home, keepConfig: true };
          first = false;
          return TestServer.start(options);
        },
      });
      expect(lines).toEqual(recording());
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test("a turn's read state is stored when the process ends right after the turn", async () => {
    const home = mkdtempSync(join(tmpdir(), 'thread-host-read-state-'));
    try {
      const server = await TestServer.start({ home, modelUrl: mock.url, rootConfig: await storeRootConfig(store) });
      const { thread } = await server.request('thread/start', {});
      const { turn } = await server.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'hello' }] });
      const changed = await server.waitForNotification('thread/readState/changed');
      expect(await server.close()).toBe(0);
      const restarted = await TestServer.start({ home, keepConfig: true });
      const { readState } = await restarted.request('thread/read', { threadId: thread.id });
      expect([readState, changed]).toEqual([{ firstUnread: { type: 'turn', turnId: turn.id }, revision: changed.readState.revision }, { threadId: thread.id, readState }]);
      expect(await restarted.close()).toBe(0);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
