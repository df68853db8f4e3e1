// The scenarios of the reference's recordings of thread/name/set and thread/delete
// (test/fixtures/reference-answers/), run on hosts of either thread store: thread-name and
// thread-delete.test.ts on the files store, postgres-thread-changes.test.ts on PostgreSQL.
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import type { Message, TestServer } from './test-server.js';

/** A new thread, with one completed turn on `text` unless it is null (a thread never written). */
export async function startedThread(server: TestServer, text: string | null): Promise<string> {
  const { thread } = await server.request('thread/start', {});
  if (text !== null) {
    const { turn } = await server.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text }] });
    await server.waitForNotification('turn/completed', (p: Message) => p.turn.id === turn.id);
  }
  return thread.id;
}

/** thread-delete.jsonl's setup, in its order: its labels and the ids they stand for. */
export async function deleteRecordingSetup(server: TestServer, other: TestServer): Promise<Record<string, string>> {
  const ids = {
    '<loaded>': await startedThread(server, 'loaded here'),
    '<stored>': await startedThread(server, 'stored'),
    '<archived>': await startedThread(server, 'archived'),
    '<fresh>': await startedThread(server, null),
    '<other>': await startedThread(other, 'held by another process'),
  };
  await server.request('thread/name/set', { threadId: ids['<loaded>'], name: 'first' });
  await server.request('thread/name/set', { threadId: ids['<stored>'], name: 'kept' });
  await server.request('thread/name/set', { threadId: ids['<loaded>'], name: 'second' });
  await server.request('thread/unsubscribe', { threadId: ids['<stored>'] });
  await server.waitForNotification('thread/closed', (p: Message) => p.threadId === ids['<stored>']);
  await server.request('thread/archive', { threadId: ids['<archived>'] });
  return ids;
}

type NameStep = { method?: string; params?: { threadId: string; name: string }; answer?: Message; notification?: Message; read?: string; list?: string[] };
const nameSteps: NameStep[] = readFileSync(new URL('../fixtures/reference-answers/thread-name.jsonl', import.meta.url), 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as NameStep);

const inThread = (value: unknown, threadId: string): Message => JSON.parse(JSON.stringify(value).replaceAll('<thread>', threadId));
export const nameOf = async (server: TestServer, threadId: string) => (await server.request('thread/read', { threadId })).thread.name;
export const listedNames = async (server: TestServer) => (await server.request('thread/list', {})).data.map((thread: Message) => thread.name);

/**
 * thread-name.jsonl on a thread `server` starts: each answer and notification the recording's,
 * the name shown by `server` and every one of `readers` where the recording reads it, and the
 * thread unloaded before the last rename. Answers the thread's id.
 */
export async function replayRenames(server: TestServer, readers: TestServer[] = []): Promise<string> {
  const { thread } = await server.request('thread/start', {});
  const ask = async (step: NameStep) => {
    const reply = await server.requestRaw(step.method!, inThread(step.params, thread.id));
    expect({ result: reply.result, error: reply.error }, JSON.stringify(step.params)).toEqual({ result: undefined, error: undefined, ...inThread(step.answer, thread.id) });
  };
  const [beforeTurn, notified, afterTurn, empty, blank, shown, unknown, malformed, afterUnload] = nameSteps;
  await ask(beforeTurn!);
  const notification = await server.waitForNotification('thread/name/updated');
  expect({ method: 'thread/name/updated', params: notification }).toEqual(inThread(notified!.notification, thread.id));
  const { turn } = await server.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'hi' }] });
  await server.waitForNotification('turn/completed', (p: Message) => p.turn.id === turn.id);
  for (const step of [afterTurn, empty, blank]) await ask(step!);
  for (const reader of [server, ...readers]) expect([await nameOf(reader, thread.id), await listedNames(reader)]).toEqual([shown!.read, shown!.list]);
  for (const step of [unknown, malformed]) await ask(step!);
  await server.request('thread/unsubscribe', { threadId: thread.id });
  await server.waitForNotification('thread/closed', (p: Message) => p.threadId === thread.id);
  await ask(afterUnload!);
  expect(server.notifications('thread/name/updated').length).toBe(2);
  for (const reader of [server, ...readers]) expect(await nameOf(reader, thread.id)).toBe('after unsubscribe');
  return thread.id;
}
