// thread/compact/start as codex-cli 0.171.0 answers and records it, on the same requests
// (test/fixtures/reference-answers/compaction.jsonl, compaction-rollout.jsonl): the answers,
// the compaction turn's notifications, the thread's turns, what the model is sent before and
// after (the summary instead of the dropped turns, also after a restart), and the records the
// rollout keeps. Normalized: ids (by first appearance), times, and the token-usage and
// rate-limit notifications, which the reference sends several times per sampling.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { conversationOf, normalizedLines } from '../helpers/reference-lines.js';
import { TestServer, type Message } from '../helpers/test-server.js';

const FIXTURES = new URL('../fixtures/reference-answers/', import.meta.url);
const reference = readFileSync(new URL('compaction.jsonl', FIXTURES), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Message);
const referenceRollout = readFileSync(new URL('compaction-rollout.jsonl', FIXTURES), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Message);
const SUMMARY = 'SUMMARY OF THE THREAD';
const NOISE = new Set(['thread/tokenUsage/updated', 'account/rateLimits/updated']);

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel({ reply: 'Done' });
});
afterAll(() => mock.close());

test('a compaction answers, notifies, reads and reaches the model as the reference does', async () => {
  const home = mkdtempSync(join(tmpdir(), 'thread-host-compact-'));
  try {
    const server = await TestServer.start({ home, modelUrl: mock.url });
    const { thread } = await server.request('thread/start', {});
    const firstRequest = mock.requests.length;
    const turn = async (text: string) => {
      const started = await server.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text }] });
      await server.waitForNotification('turn/completed', (p: Message) => p.turn.id === started.turn.id);
    };
    const lines: Message[] = [];
    const ask = async (params: Message) => {
      const reply = await server.requestRaw('thread/compact/start', params);
      lines.push({ method: 'thread/compact/start', params, answer: reply.error ? { error: reply.error } : { result: reply.result } });
    };
    const compacted = new Set<string>();
    const compact = async (params: Message) => {
      mock.enqueue({ kind: 'reply', text: SUMMARY });
      const mark = server.notifications().length;
      await ask(params);
      const item = await server.waitForNotification('item/completed', (p: Message) => p.item.type === 'contextCompaction' && !compacted.has(p.item.id));
      compacted.add(item.item.id);
      await server.waitForNotification('turn/completed', (p: Message) => p.turn.id === item.turnId);
      return { mark };
    };

    await turn('hello');
    const { mark } = await compact({ threadId: thread.id });
    for (const n of server.notifications().slice(mark)) if (!NOISE.has(n.method)) lines.push({ notification: { method: n.method, params: n.params } });
    await turn('after');
    await ask({ threadId: '00000000-0000-0000-0000-000000000000' });
    await ask({ threadId: 'nope' });
    await compact({ threadId: thread.id, extra: 1 });
    const read = await server.request('thread/read', { threadId: thread.id, includeTurns: true });
    lines.push({ read: 'thread/read includeTurns', turns: read.thread.turns });
    lines.push({ modelRequests: mock.requests.slice(firstRequest).map((request) => conversationOf((request.body as Message).input)) });

    const expected = reference.filter((line) => !NOISE.has(line.notification?.method));
    // The reference answered the malformed-id request before the second compaction's: same lines, same order.
    expect(normalizedLines(lines, thread.id)).toEqual(normalizedLines(expected, '<thread>'));

    // The rollout: the compaction's records in the reference's order and content (the ones
    // this host writes: it keeps no world_state, settings or per-response usage records).
    const written = readFileSync(read.thread.path, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Message);
    const compactionTurn = read.thread.turns[1].id;
    expect(compactionRecords(written, compactionTurn)).toEqual(compactionRecords(referenceRollout, referenceRollout[0]!.payload.turn_id));
    expect(await server.close()).toBe(0);

    // Resumed in a new process, the thread sends the model the summary, not the dropped turns.
    const restarted = await TestServer.start({ home, keepConfig: true, modelUrl: mock.url });
    await restarted.request('thread/resume', { threadId: thread.id });
    const before = mock.requests.length;
    const again = await restarted.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'resumed' }] });
    await restarted.waitForNotification('turn/completed', (p: Message) => p.turn.id === again.turn.id);
    const summary = expected.find((line) => line.modelRequests)!.modelRequests[2][1];
    expect(conversationOf((mock.requests[before]!.body as Message).input)).toEqual([['user', 'hello'], ['user', 'after'], summary, ['user', 'resumed']]);
    expect(await restarted.close()).toBe(0);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test('the embedded model summarizes what the user said, and the next turn builds on it', async () => {
  const server = await TestServer.start();
  try {
    const { thread } = await server.request('thread/start', {});
    for (const text of ['first', 'second']) {
      const { turn } = await server.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text }] });
      await server.waitForNotification('turn/completed', (p: Message) => p.turn.id === turn.id);
    }
    await server.request('thread/compact/start', { threadId: thread.id });
    await server.waitForNotification('turn/completed', (p: Message) => p.turn.status === 'completed' && p.turn.itemsView === 'notLoaded');
    const { turn } = await server.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'third' }] });
    const done = await server.waitForNotification('turn/completed', (p: Message) => p.turn.id === turn.id);
    // The kept conversation is the two user messages and the summary: this is the third.
    expect(done.turn.items.map((item: Message) => item.text)).toEqual(['You said: third (message 3 in this thread)']);
    const read = await server.request('thread/read', { threadId: thread.id, includeTurns: true });
    expect(read.thread.turns.map((t: Message) => t.items.map((item: Message) => item.type))).toEqual([
      ['userMessage', 'agentMessage'], ['userMessage', 'agentMessage'], ['contextCompaction'], ['userMessage', 'agentMessage'],
    ]);
  } finally {
    expect(await server.close()).toBe(0);
  }
});

/** The records of one compaction turn that both hosts write, ids and times left out. */
function compactionRecords(records: Message[], turnId: string): Message[] {
  const first = records.findIndex((r) => r.payload.type === 'task_started' && r.payload.turn_id === turnId);
  const last = records.findIndex((r) => r.payload.type === 'task_complete' && r.payload.turn_id === turnId);
  const kept: Message[] = [];
  for (const { type, payload, metadata } of records.slice(first, last + 1)) {
    if (type === 'compacted') {
      const history = payload.replacement_history
        .filter((m: Message) => m.role !== 'developer' && !m.content[0].text.startsWith('<environment_context>'))
        .map((m: Message) => [m.role, m.content[0].text, m.internal_chat_message_metadata_passthrough.content_item_kinds]);
      kept.push({ type, message: payload.message, history });
    } else if (type === 'response_item') {
      kept.push({ type, role: payload.role, content: payload.content, compactionOutput: metadata?.compaction_output });
    } else if (type === 'event_msg' && ['task_started', 'item_completed', 'task_complete'].includes(payload.type)) {
      kept.push({ type: payload.type, item: payload.item?.type, lastAgentMessage: payload.last_agent_message });
    }
  }
  return kept;
}
