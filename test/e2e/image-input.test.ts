// Images in turn/start input reach the model as the reference sends them (codex-cli 0.171.0,
// probed: docs/tools.md): an inline image as `input_image` (detail "high", or "auto" when
// chosen), a local file read and sent as a data URL between its `<image …>` tags, either
// resized when past the patch budget; a missing or non-image file as the reference's texts, a
// linked image refused; the echo and the rollout keep the client's form.
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
