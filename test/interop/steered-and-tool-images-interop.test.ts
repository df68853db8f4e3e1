// Opt-in (`npm run test:interop`): images that reach a running turn other than through
// turn/start, sent by the real reference, codex-cli 0.171.0, and by thread-host to the same
// mock model: input steered in (a local PNG past the patch budget, an inline image, a missing
// file, texts; two steers at once; one while a client's tool call waits), and tool results (a client's `inputImage` answers, `DATA:`
// and `Data:` URLs, bad base64, a non-image, a remote URL; an MCP server's image blocks).
// Compared field by field, in both history modes: the model requests' input (a turn after a
// resume by a new server too), the items and the steer answers in the order the client gets
// them, and the rollout's records. An image is
// compared by its shape (type, size, detail) and its bytes where they are the file's own; a
// resized one is encoded by another library.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { expect, test } from 'vitest';
import { functionCallItem, messageItem } from '../../src/main/commands/mock-model/mock-model-server.js';
import { referenceAndMock } from './reference-and-mock.js';
import { mockModelConfig, TestServer, type Message } from '../helpers/test-server.js';

type Side = 'thread-host' | 'codex';
type Mode = 'paginated' | 'legacy';
const reference = referenceAndMock();
const STDIO_SERVER = fileURLToPath(new URL('../fixtures/mcp/stdio-server.mjs', import.meta.url));
const SCHEMA = { type: 'object', properties: { x: { type: 'string' } }, required: ['x'], additionalProperties: false };
const TOOLS = [{ type: 'function', name: 'img_tool', description: 'Returns images', inputSchema: SCHEMA }];
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const TIMES = new Set(['startedAtMs', 'completedAtMs', 'started_at_ms', 'completed_at_ms', 'durationMs', 'duration', 'emittedAtMs', 'create_time', 'timestamp']);

function gradient(width: number, height: number) {
  const pixels = Buffer.alloc(width * height * 3);
  for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 7) % 251;
  return sharp(pixels, { raw: { width, height, channels: 3 } });
}

/** The files both sides read, by name. */
async function imageFiles(): Promise<Map<string, Buffer>> {
  return new Map([
    ['large.png', await gradient(3000, 3000).png().toBuffer()],
    ['small.png', await gradient(40, 30).png().toBuffer()],
    ['inline.png', await gradient(20, 10).png().toBuffer()],
    ['small.jpg', await gradient(20, 10).jpeg().toBuffer()],
    // Past the longest side, yet a small file: the MCP result that carries it stays whole in the
    // reference's rollout (it cuts a long one short in the middle).
    ['wide.png', await sharp(Buffer.alloc(2100 * 100 * 3, 90), { raw: { width: 2100, height: 100, channels: 3 } }).png().toBuffer()],
  ]);
}

/** `value` with ids, times and the side's directory out of the way, and each image as its shape. */
async function normalised(value: unknown, root: string, files: Map<string, Buffer>): Promise<unknown> {
  if (Array.isArray(value)) return Promise.all(value.map((inner) => normalised(inner, root, files)));
  if (typeof value === 'string') {
    const image = /^data:([^;,]*)[^,]*;base64,(.+)$/is.exec(value);
    if (image !== null && image[2]!.length > 12) {
      const bytes = Buffer.from(image[2]!, 'base64');
      const file = [...files.entries()].find(([, content]) => content.equals(bytes))?.[0] ?? 're-encoded';
      const meta = await sharp(bytes).metadata().catch(() => null);
      return `<${value.slice(0, 5)}${image[1]} ${meta === null ? 'undecodable' : `${meta.format} ${meta.width}x${meta.height}`} ${file}>`;
    }
    return value.split(root).join('<root>').replace(UUID, '<uuid>').replace(/^Wall time: \d+\.\d{4} seconds/, 'Wall time');
  }
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) out[key] = TIMES.has(key) ? typeof inner : await normalised(inner, root, files);
  return out;
}

interface Run {
  requests: unknown[];
  seen: unknown[];
  records: unknown[];
}

async function startSide(side: Side, root: string, mode: Mode): Promise<{ server: TestServer; threadId: string }> {
  const server = await startServer(side, root);
  const { thread } = await server.request('thread/start', { historyMode: mode, dynamicTools: TOOLS });
  return { server, threadId: thread.id };
}

async function startServer(side: Side, root: string): Promise<TestServer> {
  const home = join(root, 'home');
  mkdirSync(join(home, 'tmpdir'), { recursive: true });
  mkdirSync(join(root, 'user'), { recursive: true });
  const env = `{ MCP_FIXTURE_IMAGE = ${JSON.stringify(join(root, 'wide.png'))} }`;
  const mcp = `[mcp_servers.fx]\ncommand = ${JSON.stringify(process.execPath)}\nargs = ${JSON.stringify([STDIO_SERVER])}\nenv = ${env}\nenabled_tools = ["images"]\n`;
  writeFileSync(join(home, 'config.toml'), `${mockModelConfig(reference.mock.url)}\n${mcp}`);
  return TestServer.start({
    home, keepConfig: true, env: { TMPDIR: join(home, 'tmpdir'), HOME: join(root, 'user'), RUST_BACKTRACE: '0' },
    ...(side === 'codex' ? { command: [reference.codex, 'app-server', '--listen', 'stdio://'] } : {}),
  });
}

/** The thread resumed by a new server of the side, and what the model is sent for one more turn: the history as it was rebuilt. */
async function resumedTurn(side: Side, root: string, threadId: string): Promise<unknown[]> {
  const server = await startServer(side, root);
  try {
    await server.request('thread/resume', { threadId });
    const before = reference.mock.requests.length;
    const { turn } = await server.request('turn/start', { threadId, input: [{ type: 'text', text: 'next' }] });
    await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id, 60_000);
    return modelInput(reference.mock.requests.slice(before));
  } finally {
    await server.close();
  }
}

/** What the model was sent: the user's messages (the harness's aside) and the tool calls and outputs. */
function modelInput(requests: Message[]): unknown[] {
  return requests.map((request) => (request.body as { input: Message[] }).input.flatMap((item): Message[] => {
    if (item.type === 'message' && item.role === 'user' && !String((item.content as Message[])[0]?.text).startsWith('<environment_context>')) return [{ role: item.role, content: item.content }];
    if (item.type === 'function_call_output') return [{ call_id: item.call_id, output: item.output }];
    return [];
  }));
}

/** The rollout's records of the user's messages and the tools' outputs and items. */
function rolloutRecords(path: string): unknown[] {
  const records = readFileSync(path, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Message);
  const users = records.filter((r) => r.type === 'response_item' && r.payload.role === 'user' && r.payload.internal_chat_message_metadata_passthrough?.content_item_kinds?.[0] !== 'environments.environment_context')
    .map((r) => ({ content: r.payload.content, meta: r.payload.internal_chat_message_metadata_passthrough }));
  const events = records.filter((r) => r.type === 'event_msg' && r.payload.type === 'user_message').map((r) => r.payload);
  // The outputs by call: the two write them in different orders.
  const byCall = (a: Message, b: Message) => String(a.call_id ?? a.item?.id).localeCompare(String(b.call_id ?? b.item?.id));
  const outputs = records.filter((r) => r.payload.type === 'function_call_output').map((r) => ({ call_id: r.payload.call_id, output: r.payload.output })).sort(byCall);
  const items = records.filter((r) => r.payload.type === 'item_completed' && r.payload.item.type !== 'AgentMessage').map((r) => r.payload).sort(byCall);
  return [users, events, outputs, items];
}

async function steerScript(side: Side, root: string, mode: Mode): Promise<Omit<Run, 'records'> & { path: string; threadId: string }> {
  const { server, threadId } = await startSide(side, root, mode);
  const mock = reference.mock;
  try {
    const first = mock.requests.length;
    mock.enqueue({ kind: 'stall', ms: 60_000 });
    const { turn } = await server.request('turn/start', { threadId, input: [{ type: 'localImage', path: join(root, 'small.png') }, { type: 'text', text: 'first' }] });
    while (mock.requests.length === first) await new Promise((resolve) => setTimeout(resolve, 5));
    const mark = server.received.length;
    const inline = `data:image/png;base64,${readFileSync(join(root, 'inline.png')).toString('base64')}`;
    const steers = [
      [{ type: 'text', text: 'look', text_elements: [] }, { type: 'localImage', path: join(root, 'large.png') }, { type: 'image', url: inline },
        { type: 'localImage', path: join(root, 'missing.png') }, { type: 'text', text: 'end', text_elements: [] }],
      [{ type: 'localImage', path: join(root, 'small.png') }, { type: 'text', text: 'again' }, { type: 'text', text: 'twice' }],
    ];
    await Promise.all(steers.map((input) => server.requestRaw('turn/steer', { threadId, expectedTurnId: turn.id, input })));
    await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id, 60_000);

    // Steered while a client's tool call waits: it joins the sampling after the call's output.
    mock.enqueue({ kind: 'output', items: [functionCallItem('c_wait', 'img_tool', { x: 'wait' })] });
    const { turn: second } = await server.request('turn/start', { threadId, input: [{ type: 'text', text: 'call' }] });
    const call = await server.waitFor((m) => m.method === 'item/tool/call' && 'id' in m, 20_000);
    await server.requestRaw('turn/steer', { threadId, expectedTurnId: second.id, input: [{ type: 'localImage', path: join(root, 'large.png') }, { type: 'text', text: 'while' }] });
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    server.sendText(JSON.stringify({ id: call.id, result: { contentItems: [{ type: 'inputText', text: 'waited' }], success: true } }));
    await server.waitForNotification('turn/completed', (p) => p.turn.id === second.id, 60_000);
    const seen = server.received.slice(mark).filter((m) => !('method' in m) || (String(m.method).startsWith('item/') && ['userMessage', 'dynamicToolCall'].includes(m.params.item?.type)))
      .map((m) => ('method' in m ? { method: m.method, params: m.params } : { answer: m.result ?? m.error }));
    const path = (await server.request('thread/read', { threadId })).thread.path as string;
    return { requests: modelInput(mock.requests.slice(first)), seen, path, threadId };
  } finally {
    await server.close();
  }
}

async function toolScript(side: Side, root: string, mode: Mode): Promise<Omit<Run, 'records'> & { path: string; threadId: string }> {
  const { server, threadId } = await startSide(side, root, mode);
  const mock = reference.mock;
  try {
    const data = (name: string) => readFileSync(join(root, name)).toString('base64');
    const answers: Record<string, unknown[]> = {
      c_large: [{ type: 'inputText', text: 'a' }, { type: 'inputImage', imageUrl: `data:image/png;base64,${data('large.png')}` }],
      c_upper: [{ type: 'inputImage', imageUrl: `DATA:image/png;base64,${data('inline.png')}` }],
      c_mixed: [{ type: 'inputImage', imageUrl: `Data:image/png;base64,${data('inline.png')}` }],
      c_mislabelled: [{ type: 'inputImage', imageUrl: `data:image/png;base64,${data('small.jpg')}` }],
      c_bad: [{ type: 'inputImage', imageUrl: 'data:image/png;base64,!!!notbase64' }],
      c_text: [{ type: 'inputImage', imageUrl: 'data:text/plain;base64,aGVsbG8=' }],
      c_remote: [{ type: 'inputImage', imageUrl: 'http://example.com/x.png' }],
    };
    const first = mock.requests.length;
    mock.enqueue({ kind: 'output', items: [...Object.keys(answers).map((id) => functionCallItem(id, 'img_tool', { x: id })), functionCallItem('m_images', 'images', {}, 'mcp__fx')] });
    mock.enqueue({ kind: 'output', items: [messageItem('msg_2', 'done')] });
    const { turn } = await server.request('turn/start', { threadId, input: [{ type: 'text', text: 'go' }] });
    const count = Object.keys(answers).length;
    await server.waitFor(() => server.received.filter((m) => m.method === 'item/tool/call' && 'id' in m).length >= count, 20_000, 'tool calls');
    for (const call of server.received.filter((m) => m.method === 'item/tool/call' && 'id' in m)) {
      server.sendText(JSON.stringify({ id: call.id, result: { contentItems: answers[call.params.callId as string], success: true } }));
    }
    await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id, 60_000);
    const seen = server.received.filter((m) => m.method === 'item/completed' && ['dynamicToolCall', 'mcpToolCall'].includes(m.params.item.type))
      .map((m) => m.params.item).sort((a: Message, b: Message) => String(a.id).localeCompare(String(b.id)));
    const path = (await server.request('thread/read', { threadId })).thread.path as string;
    return { requests: modelInput(mock.requests.slice(first)), seen, path, threadId };
  } finally {
    await server.close();
  }
}

async function run(side: Side, mode: Mode, script: typeof steerScript, files: Map<string, Buffer>): Promise<Run> {
  const root = mkdtempSync(join(tmpdir(), `thread-host-interop-${side}-`));
  try {
    for (const [name, bytes] of files) writeFileSync(join(root, name), bytes);
    const { requests, seen, path, threadId } = await script(side, root, mode);
    const records = rolloutRecords(path);
    const resumed = await resumedTurn(side, root, threadId);
    return (await normalised({ requests: [...requests, ...resumed], seen, records }, root, files)) as Run;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

for (const mode of ['paginated', 'legacy'] as const) {
  for (const [what, script] of [['steered images', steerScript], ['tool result images', toolScript]] as const) {
    test(`${what}, ${mode} history: the same model input, items, answers and records on both`, async () => {
      const files = await imageFiles();
      const codex = await run('codex', mode, script, files);
      const host = await run('thread-host', mode, script, files);
      expect(host.requests).toEqual(codex.requests);
      expect(host.seen).toEqual(codex.seen);
      expect(host.records).toEqual(codex.records);
    }, 120_000);
  }
}
