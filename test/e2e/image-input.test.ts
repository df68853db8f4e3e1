// Images in turn/start input reach the model as the reference sends them (codex-cli 0.171.0,
// probed: docs/tools.md): an inline image as `input_image` (detail "high", or "auto" when
// chosen), a local file read and sent as a data URL between its `<image …>` tags, either
// resized when past the patch budget; a missing or non-image file as the reference's texts, a
// linked image refused; the echo and the rollout keep the client's form. Images steered into a
// running turn are prepared the same way, in the order they came, and replayed after a resume.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { TestServer, type Message } from '../helpers/test-server.js';

// A 2×2 RGB PNG, as the probe used.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEklEQVR4nGP4z8Dwn52BAUIBACA7BAvR/u16AAAAAElFTkSuQmCC';
const DATA = `data:image/png;base64,${PNG}`;

let mock: MockModel;
let dir: string;
beforeAll(async () => {
  mock = await startMockModel({ reply: 'Done' });
  dir = mkdtempSync(join(tmpdir(), 'thread-host-images-'));
  writeFileSync(join(dir, 'x.png'), Buffer.from(PNG, 'base64'));
  writeFileSync(join(dir, 'text.png'), 'not an image');
  writeFileSync(join(dir, 'png-named.jpg'), Buffer.from(PNG, 'base64'));
  writeFileSync(join(dir, 'large.png'), await largePng());
});

// 3000×3000, past the reference's patch budget: it is sent as 1600×1600.
async function largePng(): Promise<Buffer> {
  const pixels = Buffer.alloc(3000 * 3000 * 3);
  for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 7) % 251;
  return sharp(pixels, { raw: { width: 3000, height: 3000, channels: 3 } }).png().toBuffer();
}
afterAll(async () => {
  await mock.close();
  rmSync(dir, { recursive: true, force: true });
});

test('inline and local images, good and bad, as the model and the client see them', async () => {
  const server = await TestServer.start({ modelUrl: mock.url });
  try {
    const x = join(dir, 'x.png');
    const cases: Array<[unknown[], unknown[], unknown[]]> = [
      [[{ type: 'text', text: 'see image' }, { type: 'image', url: DATA }],
        [{ type: 'text', text: 'see image', text_elements: [] }, { type: 'image', url: DATA, detail: null }],
        [{ type: 'input_text', text: 'see image' }, { type: 'input_image', image_url: DATA, detail: 'high' }]],
      [[{ type: 'image', url: DATA, detail: 'low' }],
        [{ type: 'image', url: DATA, detail: 'low' }],
        [{ type: 'input_text', text: "image content omitted because detail 'low' is not supported; use 'high', 'original', or 'auto'" }]],
      [[{ type: 'text', text: 'local' }, { type: 'localImage', path: x }],
        [{ type: 'text', text: 'local', text_elements: [] }, { type: 'localImage', detail: null, path: x }],
        [{ type: 'input_text', text: 'local' }, { type: 'input_text', text: `<image name=[Image #1] path="${x}">` }, { type: 'input_image', image_url: DATA, detail: 'high' }, { type: 'input_text', text: '</image>' }]],
      [[{ type: 'localImage', path: join(dir, 'missing.png') }],
        [{ type: 'localImage', detail: null, path: join(dir, 'missing.png') }],
        [{ type: 'input_text', text: `Codex could not read the local image at \`${join(dir, 'missing.png')}\`: No such file or directory (os error 2)` }]],
      [[{ type: 'localImage', path: join(dir, 'text.png') }],
        [{ type: 'localImage', detail: null, path: join(dir, 'text.png') }],
        [{ type: 'input_text', text: `<image name=[Image #1] path="${join(dir, 'text.png')}">` }, { type: 'input_text', text: 'image content omitted because it could not be processed' }, { type: 'input_text', text: '</image>' }]],
      [[{ type: 'image', url: DATA }, { type: 'localImage', path: join(dir, 'png-named.jpg') }, { type: 'text', text: 'after' }],
        [{ type: 'image', url: DATA, detail: null }, { type: 'localImage', detail: null, path: join(dir, 'png-named.jpg') }, { type: 'text', text: 'after', text_elements: [] }],
        [{ type: 'input_image', image_url: DATA, detail: 'high' }, { type: 'input_text', text: `<image name=[Image #2] path="${join(dir, 'png-named.jpg')}">` },
          { type: 'input_image', image_url: DATA, detail: 'high' }, { type: 'input_text', text: '</image>' }, { type: 'input_text', text: 'after' }]],
    ];
    for (const [input, echoed, modelContent] of cases) {
      const { thread } = await server.request('thread/start', {});
      const before = mock.requests.length;
      const { turn } = await server.request('turn/start', { threadId: thread.id, input });
      const item = await server.waitForNotification('item/completed', (p) => p.turnId === turn.id && p.item.type === 'userMessage');
      await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id);
      expect(item.item.content).toEqual(echoed);
      const sent = (mock.requests[before]!.body as { input: Message[] }).input.at(-1);
      expect(sent).toEqual({ type: 'message', role: 'user', content: modelContent });
      // The rollout records the message as the model got it, and the client's form in the item.
      const path = (await server.request('thread/read', { threadId: thread.id })).thread.path as string;
      const records = readFileSync(path, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Message);
      const user = records.find((r) => r.type === 'response_item' && r.payload.role === 'user')!.payload;
      expect(user.content).toEqual(modelContent);
      // Read back, the item is the live one.
      const read = await server.request('thread/read', { threadId: thread.id, includeTurns: true });
      expect(read.thread.turns[0].items[0].content).toEqual(echoed);
    }
    const { thread } = await server.request('thread/start', {});
    const refused = await server.requestRaw('turn/start', { threadId: thread.id, input: [{ type: 'image', url: 'https://example.com/a.png' }] });
    expect(refused.error).toEqual({ code: -32600, message: 'remote image URLs are not supported; use an inline data URL instead' });
  } finally {
    await server.close();
  }
});

test('a large image, local or inline, reaches the model resized as the reference sends it', async () => {
  const server = await TestServer.start({ modelUrl: mock.url });
  try {
    const path = join(dir, 'large.png');
    const large = `data:image/png;base64,${readFileSync(path).toString('base64')}`;
    const cases: Array<[unknown[], (images: string[]) => unknown[]]> = [
      [[{ type: 'localImage', path }], ([url]) => [{ type: 'input_text', text: `<image name=[Image #1] path="${path}">` }, { type: 'input_image', image_url: url, detail: 'high' }, { type: 'input_text', text: '</image>' }]],
      [[{ type: 'image', url: large, detail: 'auto' }], ([url]) => [{ type: 'input_image', image_url: url, detail: 'auto' }]],
      [[{ type: 'image', url: large.replace('data:', 'DATA:'), detail: 'original' }], () => [{ type: 'input_image', image_url: large, detail: 'high' }]],
      [[{ type: 'image', url: 'data:image/png;base64,AAAA' }], () => [{ type: 'input_text', text: 'image content omitted because it could not be processed' }]],
    ];
    for (const [input, expected] of cases) {
      const { thread } = await server.request('thread/start', {});
      const before = mock.requests.length;
      const { turn } = await server.request('turn/start', { threadId: thread.id, input });
      await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id, 30_000);
      const sent = (mock.requests[before]!.body as { input: Message[] }).input.at(-1)!;
      const images = (sent.content as Message[]).filter((part) => part.type === 'input_image').map((part) => part.image_url as string);
      expect(sent).toEqual({ type: 'message', role: 'user', content: expected(images) });
      for (const url of images.filter((image) => image !== large)) {
        const bytes = Buffer.from(url.slice('data:image/png;base64,'.length), 'base64');
        expect(url.startsWith('data:image/png;base64,')).toBe(true);
        const meta = await sharp(bytes).metadata();
        expect([meta.format, meta.width, meta.height, meta.channels]).toEqual(['png', 1600, 1600, 4]);
      }
    }
  } finally {
    await server.close();
  }
});

test('images steered into a running turn: answered at once, prepared, recorded in order, replayed after a restart', async () => {
  const home = mkdtempSync(join(tmpdir(), 'thread-host-steer-images-'));
  const server = await TestServer.start({ modelUrl: mock.url, home });
  let threadId = '';
  let steeredContent: unknown[] = [];
  let againContent: unknown[] = [];
  try {
    const { thread } = await server.request('thread/start', {});
    threadId = thread.id;
    mock.enqueue({ kind: 'stall', ms: 30_000 });
    const before = mock.requests.length;
    const { turn } = await server.request('turn/start', { threadId, input: [{ type: 'text', text: 'first' }] });
    while (mock.requests.length === before) await new Promise((resolve) => setTimeout(resolve, 5));
    const mark = server.received.length;
    const large = join(dir, 'large.png');
    const missing = join(dir, 'missing.png');
    const x = join(dir, 'x.png');
    const steerA = [{ type: 'text', text: 'look' }, { type: 'localImage', path: large }, { type: 'image', url: DATA }, { type: 'localImage', path: missing }, { type: 'text', text: 'end' }];
    const steerB = [{ type: 'localImage', path: x }, { type: 'text', text: 'again' }];
    const answers = await Promise.all([steerA, steerB].map((input) => server.request('turn/steer', { threadId, expectedTurnId: turn.id, input })));
    expect(answers).toEqual([{ turnId: turn.id }, { turnId: turn.id }]);
    await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id, 30_000);
    // Both answers come before the items, which come in the order the input was sent.
    const seen = server.received.slice(mark).flatMap((m) => {
      if (!('method' in m)) return ['answer'];
      return m.params?.item?.type === 'userMessage' ? [`${m.method} ${(m.params.item.content as Message[]).at(-1)!.text}`] : [];
    });
    expect(seen).toEqual(['answer', 'answer', 'item/started end', 'item/completed end', 'item/started again', 'item/completed again']);

    // The model is asked again with both, each message's images numbered from 1.
    const sent = (mock.requests.at(-1)!.body as { input: Message[] }).input.slice(-3);
    const resized = expect.stringMatching(/^data:image\/png;base64,/);
    steeredContent = [
      { type: 'input_text', text: 'look' },
      { type: 'input_text', text: `<image name=[Image #1] path="${large}">` },
      { type: 'input_image', image_url: resized, detail: 'high' },
      { type: 'input_text', text: '</image>' },
      { type: 'input_image', image_url: DATA, detail: 'high' },
      { type: 'input_text', text: `Codex could not read the local image at \`${missing}\`: No such file or directory (os error 2)` },
      { type: 'input_text', text: 'end' },
    ];
    againContent = [{ type: 'input_text', text: `<image name=[Image #1] path="${x}">` }, { type: 'input_image', image_url: DATA, detail: 'high' }, { type: 'input_text', text: '</image>' }, { type: 'input_text', text: 'again' }];
    expect(sent).toEqual([
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'first' }] },
      { type: 'message', role: 'user', content: steeredContent },
      { type: 'message', role: 'user', content: againContent },
    ]);
    const url = ((sent[1]!.content as Message[])[2]!.image_url as string);
    const meta = await sharp(Buffer.from(url.slice('data:image/png;base64,'.length), 'base64')).metadata();
    expect([meta.width, meta.height]).toEqual([1600, 1600]);
    steeredContent[2] = { type: 'input_image', image_url: url, detail: 'high' };

    // The rollout keeps each message as the model got it, labelled as the reference labels it.
    const path = (await server.request('thread/read', { threadId })).thread.path as string;
    const users = readFileSync(path, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Message)
      .filter((r) => r.type === 'response_item' && r.payload.role === 'user' && r.payload.internal_chat_message_metadata_passthrough.content_item_kinds[0] === 'user.text');
    expect(users.map((r) => [r.payload.content, r.payload.internal_chat_message_metadata_passthrough.content_item_kinds])).toEqual([
      [[{ type: 'input_text', text: 'first' }], ['user.text']],
      [steeredContent, ['user.text', 'user.text', 'user.image', 'user.text', 'user.image', 'user.text', 'user.text']],
      [againContent, ['user.text', 'user.image', 'user.text', 'user.text']],
    ]);
    const read = await server.request('thread/read', { threadId, includeTurns: true });
    expect(read.thread.turns[0].items.filter((item: Message) => item.type === 'userMessage').map((item: Message) => item.content)).toEqual([
      [{ type: 'text', text: 'first', text_elements: [] }],
      [{ type: 'text', text: 'look', text_elements: [] }, { type: 'localImage', detail: null, path: large }, { type: 'image', url: DATA, detail: null }, { type: 'localImage', detail: null, path: missing }, { type: 'text', text: 'end', text_elements: [] }],
      [{ type: 'localImage', detail: null, path: x }, { type: 'text', text: 'again', text_elements: [] }],
    ]);
  } finally {
    await server.close();
  }
  // Resumed by another host, the next turn gives the model the steered messages as they were sent.
  const again = await TestServer.start({ modelUrl: mock.url, home, keepConfig: true });
  try {
    await again.request('thread/resume', { threadId });
    const before = mock.requests.length;
    const { turn } = await again.request('turn/start', { threadId, input: [{ type: 'text', text: 'next' }] });
    await again.waitForNotification('turn/completed', (p) => p.turn.id === turn.id, 30_000);
    const users = (mock.requests[before]!.body as { input: Message[] }).input.filter((i) => i.role === 'user' && !String((i.content as Message[])[0]!.text).startsWith('<environment_context>'));
    expect(users.map((m) => m.content)).toEqual([[{ type: 'input_text', text: 'first' }], steeredContent, againContent, [{ type: 'input_text', text: 'next' }]]);
  } finally {
    await again.close();
    rmSync(home, { recursive: true, force: true });
  }
}, 60_000);
