// Opt-in (`npm run test:interop`): one script with a client's own tools run against the real
// reference, codex-cli 0.171.0, and against thread-host, on the same mock model: the items,
// the `item/tool/call` requests, what each answer becomes, the dynamic entries of the model
// requests' `tools` and what follows the user's message in their `input`, field by field
// (ids, times and durations aside). Then each side resumes the thread the other wrote and
// reads the same turns.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { functionCallItem, messageItem } from '../../src/main/commands/mock-model/mock-model-server.js';
import { referenceAndMock } from './reference-and-mock.js';
import { mockModelConfig, TestServer, type Message } from '../helpers/test-server.js';

type Side = 'thread-host' | 'codex';

const reference = referenceAndMock();
const SCHEMA = { type: 'object', properties: { x: { type: 'string' } }, required: ['x'], additionalProperties: false };
const TOOLS = [
  { type: 'function', name: 'plain_tool', description: 'A plain tool', inputSchema: SCHEMA },
  { type: 'namespace', name: 'my_ns', description: 'My namespace', tools: [{ type: 'function', name: 'ns_tool', description: 'A namespaced tool', inputSchema: SCHEMA }] },
];
const DYNAMIC_NAMES = new Set(['plain_tool', 'my_ns']);
const text = (value: string) => [{ type: 'text', text: value }];

function startSide(side: Side, home: string): Promise<TestServer> {
  return TestServer.start({ home, keepConfig: true, ...(side === 'codex' ? { command: [reference.codex, 'app-server', '--listen', 'stdio://'] } : {}) });
}

/** Ids, times and durations out of the way, so the two sides compare field by field. */
function normalised(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalised);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (['threadId', 'turnId', 'rootTurnId', 'startedAt', 'completedAt', 'startedAtMs', 'completedAtMs', 'durationMs', 'emittedAtMs'].includes(key)) out[key] = typeof inner;
    else if (key === 'id' && typeof inner === 'string' && /^(fco_)?[0-9a-f-]{36}$/.test(inner)) out[key] = 'uuid';
    else out[key] = normalised(inner);
  }
  return out;
}

/** What the model was sent after the user's message, and the dynamic tools it was offered. */
function modelView(requests: Message[]): unknown[] {
  return requests.map((request) => {
    const body = request.body as { input: Message[]; tools: Message[]; parallel_tool_calls: boolean; tool_choice: string };
    let last = body.input.length - 1;
    while (last >= 0 && !(body.input[last]!.type === 'message' && body.input[last]!.role === 'user')) last -= 1;
    return normalised({
      tools: body.tools.filter((tool) => DYNAMIC_NAMES.has(tool.name as string)),
      toolChoice: body.tool_choice,
      parallel: body.parallel_tool_calls,
      after: body.input.slice(last + 1),
    });
  });
}

async function runScript(side: Side, home: string): Promise<{ threadId: string; seen: unknown[]; model: unknown[] }> {
  const mock = reference.mock;
  const server = await startSide(side, home);
  const { thread } = await server.request('thread/start', { dynamicTools: TOOLS });
  const first = mock.requests.length;
  mock.enqueue({ kind: 'output', items: [functionCallItem('call_a', 'plain_tool', { x: 'A' }), functionCallItem('call_b', 'ns_tool', { x: 'B' }, 'my_ns')] });
  mock.enqueue({ kind: 'output', items: [messageItem('msg_2', 'All done')] });
  const { turn } = await server.request('turn/start', { threadId: thread.id, input: text('call the tools') });
  const calls = async (count: number) => {
    await server.waitFor(() => server.received.filter((m) => m.method === 'item/tool/call' && 'id' in m).length >= count, 20_000, 'tool calls');
    return server.received.filter((m) => m.method === 'item/tool/call' && 'id' in m);
  };
  const [a, b] = await calls(2);
  server.sendText(JSON.stringify({ id: b!.id, result: { contentItems: [{ type: 'inputText', text: 'b says' }, { type: 'inputText', text: 'twice' }], success: false } }));
  await server.waitForNotification('item/completed', (p) => p.item.id === 'call_b', 20_000);
  server.sendText(JSON.stringify({ id: a!.id, result: { contentItems: [{ type: 'inputText', text: 'a says' }], success: true } }));
  await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id, 20_000);
  const seen = server.received
    .filter((m) => ['item/started', 'item/completed', 'item/tool/call', 'turn/completed'].includes(m.method as string))
    .map((m) => normalised({ method: m.method, ...('id' in m ? { id: m.id } : {}), params: m.params }));
  const model = modelView(mock.requests.slice(first));
  expect(await server.close()).toBe(0);
  return { threadId: thread.id, seen, model };
}

test('a client tool script: the same requests, items, answers and model input on both', async () => {
  const homes = { 'thread-host': mkdtempSync(join(tmpdir(), 'thread-host-interop-tools-')), codex: mkdtempSync(join(tmpdir(), 'thread-host-interop-tools-')) };
  try {
    const runs: Record<Side, Awaited<ReturnType<typeof runScript>>> = {} as never;
    for (const side of ['codex', 'thread-host'] as const) {
      writeFileSync(join(homes[side], 'config.toml'), mockModelConfig(reference.mock.url, 'thread_unload_delay_secs = 0'));
      runs[side] = await runScript(side, homes[side]);
    }
    expect(runs['thread-host'].seen).toEqual(runs.codex.seen);
    expect(runs['thread-host'].model).toEqual(runs.codex.model);

    // Each side resumes what the other wrote and reads the same turns as the writer does.
    for (const [writer, reader] of [['codex', 'thread-host'], ['thread-host', 'codex']] as const) {
      const reads: unknown[] = [];
      for (const side of [writer, reader]) {
        const server = await startSide(side, homes[writer]);
        const resumed = await server.request('thread/resume', { threadId: runs[writer].threadId });
        reads.push(normalised(resumed.thread.turns));
        expect(await server.close()).toBe(0);
      }
      expect(reads[1]).toEqual(reads[0]);
    }
  } finally {
    for (const home of Object.values(homes)) rmSync(home, { recursive: true, force: true });
  }
});
