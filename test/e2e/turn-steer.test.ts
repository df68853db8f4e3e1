// turn/steer, and turn/start while a turn runs, as codex-cli 0.171.0 answers and records them
// on the same requests (test/fixtures/reference-answers/steer.jsonl): the input joins the
// running turn as a user item, the model is asked again with it, and the errors are the
// reference's. Normalized: ids (by first appearance) and times; of the notifications, the
// items of each turn and its turn/completed are compared (the reference's other ones, and when
// the first user item arrives relative to the recorder's mark, vary from run to run).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { conversationOf, normalizedLines } from '../helpers/reference-lines.js';
import { TestServer, type Message } from '../helpers/test-server.js';

const reference = readFileSync(new URL('../fixtures/reference-answers/steer.jsonl', import.meta.url), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Message);
const KEPT = new Set(['item/completed', 'turn/completed']);

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel({ reply: 'Done' });
});
afterAll(() => mock.close());

test('input sent while a turn runs joins it, as the reference does', async () => {
  const server = await TestServer.start({ modelUrl: mock.url });
  const { thread } = await server.request('thread/start', {});
  const lines: Message[] = [];
  const ask = async (method: string, params: Message) => {
    const reply = await server.requestRaw(method, params);
    lines.push({ method, params, answer: reply.error ? { error: reply.error } : { result: reply.result } });
  };
  const notes = (mark: number) => {
    for (const n of server.notifications().slice(mark)) if (KEPT.has(n.method)) lines.push({ notification: { method: n.method, params: n.params } });
  };
  // A turn whose sampling waits, as the recorder's mock did, until input joins it: the input
  // is sent once the model has the request.
  const slowTurn = async (text: string) => {
    mock.enqueue({ kind: 'stall', ms: 30_000 });
    const asked = mock.requests.length;
    const { turn } = await server.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text }] });
    await server.waitForNotification('item/completed', (p: Message) => p.turnId === turn.id && p.item.type === 'userMessage');
    while (mock.requests.length === asked) await new Promise((resolve) => setTimeout(resolve, 5));
    return turn.id as string;
  };
  const completed = (turnId: string) => server.waitForNotification('turn/completed', (p: Message) => p.turn.id === turnId);

  let mark = server.notifications().length;
  const first = await slowTurn('SLOW 1');
  await ask('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'second' }] });
  await completed(first);
  notes(mark);

  mark = server.notifications().length;
  const second = await slowTurn('SLOW 2');
  await ask('turn/steer', { threadId: thread.id, input: [{ type: 'text', text: 'steered' }], expectedTurnId: '00000000-0000-0000-0000-000000000001' });
  await ask('turn/steer', { threadId: thread.id, input: [], expectedTurnId: second });
  await ask('turn/steer', { threadId: thread.id, input: [{ type: 'text', text: 'steered' }], clientUserMessageId: 'client-1', expectedTurnId: second });
  await completed(second);
  notes(mark);
  await ask('turn/steer', { threadId: thread.id, input: [{ type: 'text', text: 'idle' }], expectedTurnId: second });
  await ask('turn/steer', { threadId: thread.id, input: [], expectedTurnId: second });
  await ask('turn/steer', { threadId: '00000000-0000-0000-0000-000000000000', input: [{ type: 'text', text: 'x' }], expectedTurnId: second });
  await ask('turn/steer', { threadId: 'nope', input: [{ type: 'text', text: 'x' }], expectedTurnId: second });
  await ask('turn/steer', { threadId: thread.id, input: [{ type: 'text', text: 'x' }] });
  const read = await server.request('thread/read', { threadId: thread.id, includeTurns: true });
  lines.push({ read: 'thread/read includeTurns', turns: read.thread.turns });
  // The stalled samplings were cut short by the input; each was sent again with it.
  lines.push({ modelRequests: mock.requests.map((request) => conversationOf((request.body as Message).input)) });

  const expected = reference.filter((line) => line.rolloutRecords === undefined && (line.notification === undefined || KEPT.has(line.notification.method)));
  expect(normalizedLines(lines, thread.id)).toEqual(normalizedLines(expected, '<thread>'));

  // The rollout: the same records in the same order (the ones this host writes).
  const records = readFileSync(read.thread.path, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Message);
  const kinds = records
    .filter((r) => r.type === 'response_item' || (r.type === 'event_msg' && ['task_started', 'item_completed', 'task_complete', 'user_message'].includes(r.payload.type)))
    .map((r) => [r.type, r.payload.type, r.payload.role ?? r.payload.item?.type ?? null, r.payload.content?.[0]?.text?.slice(0, 20) ?? r.payload.item?.content?.[0]?.text ?? null]);
  const harness = (kind: unknown[]) => kind[2] === 'developer' || String(kind[3]).startsWith('<environment_context');
  expect(kinds).toEqual(reference.find((line) => line.rolloutRecords)!.rolloutRecords.filter((kind: unknown[]) => !harness(kind)));
  expect(await server.close()).toBe(0);
});
