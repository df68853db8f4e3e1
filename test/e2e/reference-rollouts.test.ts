// Rollouts the reference (codex-cli 0.171.0) wrote, in both history formats: completed, failed
// and interrupted turns and a torn last line, each with the reference's own cold thread/read and
// thread/resume answers (test/fixtures/rollouts/reference-0.171.0, recorded with the real
// binary). thread-host must answer the same, then append a turn in the file's own format
// without changing a byte of what was there.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { TestServer, type Message } from '../helpers/test-server.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/rollouts/reference-0.171.0/', import.meta.url));
const CASES = ['two-turns', 'failed-then-completed', 'interrupted', 'torn'].flatMap((scenario) =>
  (['paginated', 'legacy'] as const).map((mode) => ({ mode, scenario, name: `${mode}-${scenario}` })),
);

interface Answers {
  origpath: string;
  threadRead: { thread: Message };
  threadResume: Message;
}

function place(home: string, name: string): { path: string; answers: Answers; original: Buffer } {
  const answers = JSON.parse(readFileSync(join(FIXTURES, `${name}.answers.json`), 'utf8')) as Answers;
  const path = join(home, answers.origpath.replace('$CODEX_HOME/', ''));
  const original = readFileSync(join(FIXTURES, `${name}.jsonl`));
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, original);
  return { path, answers, original };
}

// The reference wrote these against a mock provider `mock_provider` / `mock-model`; this host
// is configured the same way.
let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel();
});
afterAll(() => mock.close());

describe.each(CASES)('$name', ({ mode, name }) => {
  test('reads and resumes as the reference does, then appends a turn in its own format', async () => {
    const server = await TestServer.start({ modelUrl: mock.url, rootConfig: 'thread_unload_delay_secs = 0' });
    try {
      const { path, answers, original } = place(server.home, name);
      const threadId = answers.threadRead.thread.id as string;
      // The reference takes a thread's update time from its state database (which may lag the
      // file, or follow its mtime); thread-host takes the last whole record's timestamp.
      const updated = Math.floor(Date.parse(lastRecord(original).timestamp as string) / 1000);
      const ours = { path, updatedAt: updated, recencyAt: updated };
      const before = server.received.length;
      const read = await server.request('thread/read', { threadId, includeTurns: true });
      expect(read.thread).toEqual({ ...answers.threadRead.thread, ...ours });
      // Byte for byte, key order included: clients that diff answers see no difference.
      expect(JSON.stringify(read.thread.turns)).toEqual(JSON.stringify(answers.threadRead.thread.turns));
      // A paginated thread's full history is deprecated: the notice comes before the answer.
      expect(server.received.slice(before).map((m) => m.method ?? 'reply')).toEqual(mode === 'paginated' ? ['deprecationNotice', 'reply'] : ['reply']);
      expect((await server.request('thread/read', { threadId })).thread).toEqual({ ...answers.threadRead.thread, ...ours, turns: [] });
      // The paged reads of the same (unloaded) thread show the same turns and items.
      const turns = await server.request('thread/turns/list', { threadId, limit: 100, sortDirection: 'asc', itemsView: 'full' });
      expect(turns.data).toEqual(read.thread.turns);
      const items = await server.requestRaw('thread/items/list', { threadId, limit: 100 });
      if (mode === 'paginated') {
        expect(items.result.data.map((entry: Message) => entry.item)).toEqual(read.thread.turns.flatMap((t: Message) => t.items));
      } else {
        expect(items.error).toEqual({ code: -32601, message: 'thread/items/list is not supported yet' });
      }

      const resumed = await server.request('thread/resume', { threadId });
      const expected = answers.threadResume;
      expect(resumed.thread).toEqual({ ...expected.thread, ...ours });
      // Serialized by the pool worker that read them: byte for byte too, key order included.
      expect(JSON.stringify(resumed.thread.turns)).toEqual(JSON.stringify(expected.thread.turns));
      // A warm resume (the thread is loaded now) shows the same turns.
      expect(JSON.stringify((await server.request('thread/resume', { threadId })).thread.turns)).toEqual(JSON.stringify(resumed.thread.turns));
      expect([resumed.turnsBackwardsCursor, resumed.itemsBackwardsCursor]).toEqual([expected.turnsBackwardsCursor, expected.itemsBackwardsCursor]);

      const { turn } = await server.request('turn/start', { threadId, input: [{ type: 'text', text: 'from thread-host' }] });
      await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id);
      // Loaded now: the resumed turns (as the pool worker serialized them) and the new one.
      const loaded = await server.request('thread/read', { threadId, includeTurns: true });
      expect(JSON.stringify(loaded.thread.turns.slice(0, -1))).toEqual(JSON.stringify(read.thread.turns));
      expect(loaded.thread.turns.map((t: Message) => [t.id, t.status])).toEqual([...read.thread.turns.map((t: Message) => [t.id, t.status]), [turn.id, 'completed']]);
      const closed = server.waitForNotification('thread/closed', (p) => p.threadId === threadId);
      await server.request('thread/unsubscribe', { threadId });
      await closed;

      const after = readFileSync(path);
      expect(after.subarray(0, original.length).equals(original)).toBe(true);
      const added = after.subarray(original.length).toString('utf8').split('\n');
      // A torn last line is closed with a newline before the first appended record.
      const tornTail = original.at(-1) !== 0x0a;
      expect(added[0]).toEqual(tornTail ? '' : expect.stringMatching(/^\{/));
      const records = added.filter((line) => line !== '').map((line) => JSON.parse(line) as Message);
      const lastWhole = lastRecord(original);
      const expectedOrdinals = mode === 'paginated' ? records.map((_, i) => (lastWhole.ordinal as number) + 1 + i) : records.map(() => undefined);
      expect(records.map((record) => record.ordinal)).toEqual(expectedOrdinals);
      expect(records.map((record) => (record.type === 'event_msg' ? `event_msg/${record.payload.type}` : record.type))).toEqual(
        mode === 'paginated'
          ? ['event_msg/task_started', 'turn_context', 'response_item', 'event_msg/item_completed', 'event_msg/item_completed', 'response_item', 'event_msg/token_count', 'event_msg/task_complete']
          : ['event_msg/task_started', 'turn_context', 'response_item', 'event_msg/user_message', 'event_msg/agent_message', 'response_item', 'event_msg/token_count', 'event_msg/task_complete'],
      );
    } finally {
      await server.close();
    }
  });
});

describe.each(CASES)('$name, resumed without its turns', ({ name }) => {
  test('answers no turns, and the loaded thread reads them all as the reference does', async () => {
    const server = await TestServer.start({ modelUrl: mock.url });
    try {
      const { answers } = place(server.home, name);
      const threadId = answers.threadRead.thread.id as string;
      expect((await server.request('thread/resume', { threadId, excludeTurns: true })).thread.turns).toEqual([]);
      const read = await server.request('thread/read', { threadId, includeTurns: true });
      expect(JSON.stringify(read.thread.turns)).toEqual(JSON.stringify(answers.threadRead.thread.turns));
    } finally {
      await server.close();
    }
  });
});

/** The file's last whole record (a torn last line is not one). */
function lastRecord(file: Buffer): Message {
  const records = file.toString('utf8').split('\n').flatMap((line) => {
    try {
      return [JSON.parse(line) as Message];
    } catch {
      return [];
    }
  });
  return records.at(-1)!;
}
