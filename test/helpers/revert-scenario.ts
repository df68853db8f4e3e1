// The revert scenario of test/fixtures/reference-answers/thread-revert.jsonl, run on a server
// speaking the protocol (codex-cli 0.171.0 when recording): `thread/revert` of a paginated
// thread loaded in that process, what it answers and sends, the rollout files it leaves, what
// reads show and the model is sent afterwards, and its errors (a legacy thread, unknown or
// reverted turns, a turn running, a thread not loaded there). Normalised as recorded: thread
// ids are their labels, turn ids `<turn-N>`, revisions `<revision-N>`, the ids in the names of
// the rollout files a revert writes `<file-N>`, by first appearance.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { conversationOf } from './reference-lines.js';
import type { Message, TestServer } from './test-server.js';
import { TranscriptLabels } from './transcript-labels.js';

export type TranscriptLine = Record<string, unknown>;

export interface RevertScenarioSide {
  start(): Promise<TestServer>;
  mock: MockModel;
  home: string;
  /**
   * Where the histories are when they are not files under the home (the PostgreSQL store): each
   * thread's records in order, by `rows of <thread id>`, shown as `recordView` shows them.
   */
  storedRows?: () => Promise<Record<string, string[]>>;
}

const REVERT_FILE = /_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl/g;

/** What a rollout record shows in the transcript: its ordinal and kind, and what identifies it. */
export function recordView(line: string): unknown[] {
  const record = JSON.parse(line) as Message;
  const payload = record.payload ?? {};
  const kind = [record.ordinal ?? null, record.type, payload.type ?? null];
  if (record.type === 'session_meta') return [...kind, { history_mode: payload.history_mode, history_base: payload.history_base ?? null }];
  if (payload.type === 'task_started' || payload.type === 'task_complete' || payload.type === 'turn_aborted') return [...kind, payload.turn_id];
  if (record.type === 'response_item' && payload.type === 'message') {
    const text = String(payload.content?.[0]?.text ?? '');
    return [...kind, payload.role, payload.role === 'developer' || text.startsWith('<environment_context>') ? '…' : text];
  }
  return kind;
}

/**
 * The rollouts under sessions/ by path, each as its records' views. A history base's byte
 * offset depends on the lengths of earlier lines (times, durations): it is shown as what it
 * must be, the start of the base file's line with that ordinal, when it is.
 */
function rolloutFiles(home: string): Record<string, unknown[][]> {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? walk(join(dir, name)) : [join(dir, name)]));
  const paths = walk(join(home, 'sessions')).sort();
  const files: Record<string, unknown[][]> = {};
  for (const path of paths) {
    files[relative(home, path)] = readFileSync(path, 'utf8').split('\n').filter(Boolean).map((line) => {
      const view = recordView(line);
      const base = (view[3] as { history_base?: { thread_id: string; end_ordinal_exclusive: number; end_byte_offset: number | string } } | undefined)?.history_base;
      if (base) {
        const basePath = paths.find((candidate) => candidate.endsWith(`-${base.thread_id}.jsonl`) || candidate.endsWith(`_${base.thread_id}.jsonl`));
        if (basePath !== undefined && lineStart(basePath, base.end_ordinal_exclusive) === base.end_byte_offset) base.end_byte_offset = `start of ordinal ${base.end_ordinal_exclusive}`;
      }
      return view;
    });
  }
  return files;
}

/** Where the line with `ordinal` starts in the file, in bytes; null when no line has it. */
function lineStart(path: string, ordinal: number): number | null {
  const bytes = readFileSync(path);
  for (let at = 0; at < bytes.length; ) {
    const end = bytes.indexOf(0x0a, at);
    if ((JSON.parse(bytes.subarray(at, end).toString('utf8')) as Message).ordinal === ordinal) return at;
    at = end + 1;
  }
  return null;
}

/** Runs the scenario; returns its transcript. */
export async function revertScenario(side: RevertScenarioSide): Promise<TranscriptLine[]> {
  const lines: TranscriptLine[] = [];
  let server = await side.start();
  const labels = new TranscriptLabels({ turnId: { prefix: 'turn' }, revision: { prefix: 'revision', keep: (revision) => revision.startsWith('initial:') } });
  const push = (line: TranscriptLine) => {
    // Ids of revert files are named before the rest, wherever they first appear.
    for (const match of JSON.stringify(line).matchAll(REVERT_FILE)) labels.label(match[1]!, 'file');
    const text = JSON.stringify(labels.normalised(line))
      .replaceAll(side.home, '$CODEX_HOME')
      .replace(/sessions\/\d{4}\/\d\d\/\d\d\//g, 'sessions/<date>/')
      .replace(/rollout-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-/g, 'rollout-<time>-');
    lines.push(JSON.parse(text) as TranscriptLine);
  };
  const threadShown = (t: Message) => ({ id: t.id, path: t.path, status: t.status, preview: t.preview, turns: t.turns.map(turnShown) });
  const turnShown = (t: Message) => ({ id: t.id, status: t.status, items: t.items.map((item: Message) => [item.type, item.text ?? item.content?.[0]?.text ?? null]) });
  const projections: Record<string, (r: Message) => unknown> = {
    'thread/start': (r) => ({ thread: threadShown(r.thread) }),
    'turn/start': (r) => ({ turnId: r.turn.id, status: r.turn.status }),
    'thread/resume': (r) => ({ thread: threadShown(r.thread) }),
    'thread/revert': (r) => ({ ...r, thread: threadShown(r.thread) }),
    'thread/read': (r) => ({ thread: threadShown(r.thread), readState: r.readState }),
    'thread/turns/list': (r) => ({ ...r, data: r.data.map(turnShown) }),
    'thread/items/list': (r) => ({ ...r, data: r.data.map((entry: Message) => [entry.turnId, entry.item.type, entry.item.text ?? entry.item.content?.[0]?.text ?? null]) }),
    // Rows created in one second come in either order: sorted.
    'thread/list': (r) => ({ data: r.data.map((t: Message) => [t.id, t.preview]).sort() }),
  };

  const notificationShown = (n: Message): unknown => {
    if (n.method === 'turn/completed') return { status: n.params.turn.status };
    if (n.method === 'thread/started') return { thread: threadShown(n.params.thread) };
    if (n.method === 'turn/started') return { turnId: n.params.turn.id };
    return n.params;
  };

  // A request, its answer (projected), and the thread notifications up to one round trip later.
  const ask = async (method: string, params: unknown, startedLabel?: string): Promise<Message> => {
    const seen = server.notifications().length;
    const reply = await server.requestRaw(method, labels.concrete(params));
    if (startedLabel !== undefined) labels.name(reply.result.thread.id, startedLabel);
    await server.requestRaw('thread/loaded/list', {});
    const answer = reply.error ? { error: reply.error } : { result: (projections[method] ?? ((r) => r))(reply.result) };
    // A turn's own notifications race its answer: the turn's line has what matters of them.
    const notifications = method === 'turn/start' ? [] : server.notifications().slice(seen).filter((n) => /^(thread|turn)\//.test(String(n.method))).map((n) => ({ method: n.method, params: notificationShown(n) }));
    push({ method, params, answer, notifications });
    return reply;
  };
  const turn = async (threadId: string, text: string): Promise<void> => {
    const sampled = side.mock.requests.length;
    const reply = await ask('turn/start', { threadId, input: [{ type: 'text', text }] });
    await server.waitForNotification('turn/completed', (p: Message) => p.turn.id === reply.result.turn.id, 20_000);
    push({ turn: text, turnId: reply.result.turn.id, modelRequests: side.mock.requests.slice(sampled).map((r) => conversationOf((r.body as Message).input)) });
  };
  const files = async () => {
    const rows = side.storedRows === undefined ? null : await side.storedRows();
    push({ files: rows === null ? rolloutFiles(side.home) : Object.fromEntries(Object.entries(rows).map(([key, records]) => [key, records.map(recordView)])) });
  };

  await ask('thread/start', {}, '<thread>');
  await turn('<thread>', 'one');
  await turn('<thread>', 'two');
  await turn('<thread>', 'three');
  await ask('thread/revert', { threadId: '<thread>', beforeTurnId: '<turn-2>' });
  await files();
  await ask('thread/read', { threadId: '<thread>', includeTurns: true });
  await ask('thread/turns/list', { threadId: '<thread>' });
  await ask('thread/items/list', { threadId: '<thread>' });
  await ask('thread/revert', { threadId: '<thread>', beforeTurnId: '<turn-3>' });
  await ask('thread/revert', { threadId: '<thread>', beforeTurnId: 'nope' });
  await ask('thread/revert', { threadId: 'nope', beforeTurnId: '<turn-1>' });
  await ask('thread/revert', { threadId: '01a23645-6c4b-7000-8000-000000000000', beforeTurnId: '<turn-1>' });
  await ask('thread/revert', { threadId: '<thread>' });
  await turn('<thread>', 'four');

  // A revert while a turn runs: the turn is interrupted, then the history replaced.
  side.mock.enqueue({ kind: 'stall', ms: 20_000 });
  const sampled = side.mock.requests.length;
  const slow = await server.request('turn/start', { threadId: labels.concrete('<thread>'), input: [{ type: 'text', text: 'SLOW' }] });
  labels.label(slow.turn.id, 'turn');
  while (side.mock.requests.length === sampled) await new Promise((resolve) => setTimeout(resolve, 10));
  await ask('thread/revert', { threadId: '<thread>', beforeTurnId: '<turn-4>' });
  await files();

  await ask('thread/start', { historyMode: 'legacy' }, '<legacy>');
  await turn('<legacy>', 'legacy one');
  await ask('thread/revert', { threadId: '<legacy>', beforeTurnId: '<turn-6>' });

  await turn('<thread>', 'five');
  await ask('thread/revert', { threadId: '<thread>', beforeTurnId: '<turn-1>' });
  await files();
  await turn('<thread>', 'six');
  await server.request('thread/unsubscribe', { threadId: labels.concrete('<thread>') });
  await server.waitForNotification('thread/closed', (p: Message) => p.threadId === labels.concrete('<thread>'));
  await ask('thread/revert', { threadId: '<thread>', beforeTurnId: '<turn-8>' });
  await ask('thread/read', { threadId: '<thread>', includeTurns: true });
  await ask('thread/turns/list', { threadId: '<thread>' });
  await server.close();

  server = await side.start();
  await ask('thread/list', {});
  await ask('thread/read', { threadId: '<thread>', includeTurns: true });
  await ask('thread/resume', { threadId: '<thread>' });
  await turn('<thread>', 'seven');
  await files();
  await server.close();
  return lines;
}
