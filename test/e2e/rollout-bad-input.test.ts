// Damaged and unfamiliar rollouts (built from a paginated file the reference wrote): reading
// shows what is whole; resuming either continues the file without changing a byte of it, or
// is refused with an error naming the file and the reason, and the file is left as it was.
// Where the reference tolerates the damage (a gap or a repeat in the ordinals, a record type it
// does not know), so do we; where it refuses (a final record without an ordinal), so do we.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { RpcReplyError, TestServer, type Message } from '../helpers/test-server.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/rollouts/reference-0.171.0/', import.meta.url));
const SAMPLE = readFileSync(join(FIXTURES, 'paginated-two-turns.jsonl'), 'utf8');
const THREAD = '01a23766-f61e-7610-85e2-9656a6028117';
const RELATIVE = 'sessions/2026/12/02/rollout-2026-12-02T15-37-04-01a23766-f61e-7610-85e2-9656a6028117.jsonl';
const LINES = SAMPLE.split('\n').filter((line) => line !== '');

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel();
});
afterAll(() => mock.close());

/** Rewrites one record of the sample (by index) with `change`. */
function withRecord(index: number, change: (record: Message) => Message | string): string[] {
  return LINES.map((line, i) => {
    if (i !== index) return line;
    const changed = change(JSON.parse(line) as Message);
    return typeof changed === 'string' ? changed : JSON.stringify(changed);
  });
}

async function withHome(lines: string[], run: (server: TestServer, path: string, original: string) => Promise<void>): Promise<void> {
  const server = await TestServer.start({ modelUrl: mock.url, rootConfig: 'thread_unload_delay_secs = 0' });
  const path = join(server.home, RELATIVE);
  const original = `${lines.join('\n')}\n`;
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, original);
  try {
    await run(server, path, original);
  } finally {
    await server.close();
  }
}

async function turnAndClose(server: TestServer): Promise<void> {
  const { turn } = await server.request('turn/start', { threadId: THREAD, input: [{ type: 'text', text: 'more' }] });
  await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id);
  const closed = server.waitForNotification('thread/closed');
  await server.request('thread/unsubscribe', { threadId: THREAD });
  await closed;
}

const ordinalsAfter = (path: string, original: string) =>
  readFileSync(path, 'utf8')
    .slice(original.length)
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => (JSON.parse(line) as Message).ordinal);

describe('damage the reference tolerates is tolerated, and the file continues after its last record', () => {
  test.each([
    ['a gap in the ordinals', LINES.filter((_, i) => i !== 10), 23],
    ['a repeated ordinal', withRecord(10, (r) => ({ ...r, ordinal: 9 })), 23],
    ['a record type nobody knows, last', [...LINES, JSON.stringify({ timestamp: '2026-12-02T15:37:05.000Z', ordinal: 23, type: 'future_record', payload: {} })], 24],
    ['a line that is JSON but no record, in the middle', [...LINES.slice(0, 12), '{"hello":"world"}', ...LINES.slice(12)], 23],
  ])('%s', async (_name, lines, next) => {
    await withHome(lines, async (server, path, original) => {
      const read = await server.request('thread/read', { threadId: THREAD, includeTurns: true });
      expect(read.thread.turns.map((t: Message) => t.status)).toEqual(['completed', 'completed']);
      const resumed = await server.request('thread/resume', { threadId: THREAD, excludeTurns: true });
      expect(resumed.thread.historyMode).toEqual('paginated');
      await turnAndClose(server);
      expect(readFileSync(path, 'utf8').startsWith(original)).toBe(true);
      expect(ordinalsAfter(path, original)).toEqual(Array.from({ length: 8 }, (_, i) => next + i));
    });
  });
});

describe('a rollout this host cannot continue is refused and left untouched', () => {
  test.each([
    ['its final record has no ordinal', withRecord(LINES.length - 1, ({ ordinal: _, ...rest }) => rest), 'its final paginated rollout record is missing an ordinal'],
    ['its history_mode is unknown', withRecord(0, (r) => ({ ...r, payload: { ...r.payload, history_mode: 'tree' } })), 'its session_meta has an unknown history_mode `tree`'],
    ['its records carry ordinals but it says legacy', withRecord(0, (r) => ({ ...r, payload: { ...r.payload, history_mode: 'legacy' } })), 'its records carry ordinals but its session_meta says legacy'],
    ['its session_meta names another thread', withRecord(0, (r) => ({ ...r, payload: { ...r.payload, id: '01a23766-0000-7000-8000-000000000000' } })), 'its session_meta records thread 01a23766-0000-7000-8000-000000000000'],
  ])('%s', async (_name, lines, reason) => {
    await withHome(lines, async (server, path, original) => {
      const refused = await server.request('thread/resume', { threadId: THREAD }).catch((e: unknown) => e);
      expect(refused).toEqual(new RpcReplyError(-32603, `error resuming thread: cannot continue rollout ${path}: ${reason}`));
      expect(readFileSync(path, 'utf8')).toEqual(original);
      expect(await server.request('thread/loaded/list', {})).toEqual({ data: [], nextCursor: null });
    });
  });
});
