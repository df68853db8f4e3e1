// The read-state scenario of test/fixtures/reference-answers/thread-read-state.jsonl, run on
// any server speaking the protocol (codex-cli 0.171.0 when recording, thread-host in the e2e
// test): `thread/readState/update` in each of its answers, how turn ends move the state, and
// what thread/read and thread/list show of it, before and after a restart. The transcript is
// normalised as it is recorded: thread ids are their labels, turn ids `<turn-N>` and
// revisions `<revision-N>` by first appearance; params sent name them by label.
import type { MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import type { Message, TestServer } from './test-server.js';
import { TranscriptLabels } from './transcript-labels.js';

export type TranscriptLine = Record<string, unknown>;

/** Methods whose order around a turn's end the transcript keeps. */
const TURN_END_METHODS = new Set(['thread/readState/changed', 'thread/status/changed', 'error', 'turn/completed']);

export interface ScenarioSide {
  start(): Promise<TestServer>;
  mock: MockModel;
}

/** Runs the scenario; returns its transcript (one line per request or turn). */
export async function readStateScenario(side: ScenarioSide): Promise<TranscriptLine[]> {
  const lines: TranscriptLine[] = [];
  let server = await side.start();
  const { thread } = await server.request('thread/start', {});
  const labels = new TranscriptLabels({ turnId: { prefix: 'turn' }, revision: { prefix: 'revision', keep: (revision) => revision.startsWith('initial:') } });
  labels.name(thread.id, '<thread>');
  const readStatesSince = (seen: number) =>
    server.notifications().slice(seen).filter((n) => n.method === 'thread/readState/changed').map((n) => n.params);

  // A request, its answer (projected), and the read-state notifications up to one round trip later.
  const ask = async (method: string, params: unknown, project: (result: Message) => unknown = (r) => r): Promise<Message> => {
    const seen = server.notifications().length;
    const reply = await server.requestRaw(method, labels.concrete(params));
    await server.requestRaw('thread/loaded/list', {});
    const answer = reply.error ? { error: reply.error } : { result: project(reply.result) };
    lines.push(labels.normalised({ method, params, answer, notifications: readStatesSince(seen) }) as TranscriptLine);
    return reply;
  };
  const readState = (r: Message) => ({ readState: r.readState, status: r.thread.status });
  const listed = (r: Message) => ({ ids: r.data.map((t: Message) => t.id), readStates: r.readStates });

  // A turn to its end; the order of the notifications around its end.
  const turn = async (threadId: string, text: string, behaviour: 'completes' | 'interrupted' | 'fails'): Promise<void> => {
    if (behaviour === 'interrupted') side.mock.enqueue({ kind: 'stall', ms: 20_000 });
    if (behaviour === 'fails') side.mock.enqueue({ kind: 'httpError', status: 400, body: '{"error":{"message":"bad request"}}' });
    const seen = server.notifications().length;
    const sampled = side.mock.requests.length;
    const { turn: started } = await server.request('turn/start', { threadId: labels.concrete(threadId), input: [{ type: 'text', text }] });
    if (behaviour === 'interrupted') {
      // Interrupted while its model request stalls (the reference drops an interrupt that comes sooner).
      while (side.mock.requests.length === sampled) await new Promise((resolve) => setTimeout(resolve, 10));
      await server.request('turn/interrupt', { threadId: labels.concrete(threadId), turnId: started.id });
    }
    await server.waitForNotification('turn/completed', (p: Message) => p.turn.id === started.id, 20_000);
    await server.requestRaw('thread/loaded/list', {});
    const after = server.notifications().slice(seen).filter((n) => TURN_END_METHODS.has(String(n.method)));
    const order = after.slice(after.findIndex((n) => n.method === 'thread/status/changed' && n.params.status.type === 'active') + 1);
    lines.push(labels.normalised({ turn: text, behaviour, turnId: started.id, notifications: order.map((n) => (n.method === 'thread/readState/changed' ? n.params : n.method)) }) as TranscriptLine);
  };

  const update = (threadId: string, type: string, expectedRevision?: string) =>
    ask('thread/readState/update', { threadId, operation: { type }, ...(expectedRevision === undefined ? {} : { expectedRevision }) });

  await ask('thread/read', { threadId: '<thread>' }, readState);
  await update('<thread>', 'read', 'x');
  await turn('<thread>', 'one', 'completes');
  await ask('thread/read', { threadId: '<thread>' }, readState);
  await turn('<thread>', 'two', 'completes');
  await ask('thread/read', { threadId: '<thread>' }, readState);
  await update('<thread>', 'read', 'stale');
  await update('<thread>', 'read', '<revision-2>');
  await update('<thread>', 'read', '<revision-3>');
  await update('<thread>', 'unread', '<revision-4>');
  await update('<thread>', 'read', '<revision-5>');
  await turn('<thread>', 'SLOW', 'interrupted');
  await ask('thread/read', { threadId: '<thread>' }, readState);
  await turn('<thread>', 'fails', 'fails');
  await ask('thread/read', { threadId: '<thread>' }, readState);
  await update('01a23645-6c4b-7000-8000-000000000000', 'read', 'x');
  await update('nope', 'read', 'x');
  await update('<thread>', 'bogus', 'x');
  await update('<thread>', 'read');

  const { thread: other } = await server.request('thread/start', {});
  labels.name(other.id, '<other>');
  await turn('<other>', 'SLOW', 'interrupted');
  await ask('thread/read', { threadId: '<other>' }, readState);
  await ask('thread/list', {}, listed);
  await update('<other>', 'unread', `initial:${other.id}`);
  await server.request('thread/unsubscribe', { threadId: other.id });
  await server.waitForNotification('thread/closed', (p: Message) => p.threadId === other.id);
  await ask('thread/read', { threadId: '<other>' }, readState);
  await update('<other>', 'read', '<revision-8>');
  await ask('thread/read', { threadId: '<other>' }, readState);
  await server.close();

  server = await side.start();
  await ask('thread/read', { threadId: '<thread>' }, readState);
  await ask('thread/list', {}, listed);
  await server.close();
  return lines;
}
