// Goals and background terminals, which thread-host never has, answer as the reference does
// (test/fixtures/reference-answers/thread-state.jsonl, codex-cli 0.171.0) for a loaded thread,
// the same thread once unloaded, and ids that are no thread. Only the thread id differs.
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { TestServer, type Message } from '../helpers/test-server.js';

const recorded = readFileSync(new URL('../fixtures/reference-answers/thread-state.jsonl', import.meta.url), 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as { method: string; params: { threadId: string }; answer: Message });

test('goal and terminal reads of a loaded thread, an unloaded one and no thread', async () => {
  const server = await TestServer.start({ rootConfig: 'thread_unload_delay_secs = 0' });
  const { thread } = await server.request('thread/start', {});
  const ask = async (placeholder: string) => {
    // The ids that are no thread are asked while the thread is loaded.
    const cases = recorded.filter(({ params }) => (placeholder === '<loaded>' ? params.threadId !== '<unloaded>' : params.threadId === '<unloaded>'));
    for (const { method, params, answer } of cases) {
      const reply = await server.requestRaw(method, { threadId: params.threadId.replace(placeholder, thread.id) });
      const expected = JSON.parse(JSON.stringify(answer).replaceAll(placeholder, thread.id));
      expect(reply.error ?? null, `${method} ${params.threadId}`).toEqual(expected.error ?? null);
      expect(reply.result ?? null, `${method} ${params.threadId}`).toEqual(expected.result ?? null);
    }
  };
  await ask('<loaded>');
  const { turn } = await server.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'hi' }] });
  await server.waitForNotification('turn/completed', (p: Message) => p.turn.id === turn.id);
  await server.request('thread/unsubscribe', { threadId: thread.id });
  await server.waitForNotification('thread/closed', (p: Message) => p.threadId === thread.id);
  await ask('<unloaded>');
  expect(recorded.length).toBe(8);
  expect(await server.close()).toBe(0);
});
