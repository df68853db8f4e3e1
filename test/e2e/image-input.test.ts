// Images in turn/start input reach the model as the reference sends them (codex-cli 0.171.0,
// probed: docs/tools.md): an inline image as `input_image` with detail "high", a local file
// read and sent as a data URL between its `<image …>` tags, a missing or non-image file as the
// reference's texts, a linked image refused; the echo and the rollout keep the client's form.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
});
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
