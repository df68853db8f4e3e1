// Opt-in (`npm run test:interop`): images in turn/start input, local and inline, small and
// past the patch budget, sent by the real reference, codex-cli 0.171.0, and by thread-host to
// the same mock model. Compared per image: the parts around it, its media type, width and
// height, and its bytes where the reference sends the file's own (a resized image is encoded
// by another library, so only its shape can be the same).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp, { type Sharp } from 'sharp';
import { expect, test } from 'vitest';
import { referenceAndMock } from './reference-and-mock.js';
import { mockModelConfig, TestServer, type Message } from '../helpers/test-server.js';

type Side = 'thread-host' | 'codex';
const reference = referenceAndMock();

function gradient(width: number, height: number): Sharp {
  const pixels = Buffer.alloc(width * height * 3);
  for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 7) % 251;
  return sharp(pixels, { raw: { width, height, channels: 3 } });
}

/** Each part as compared: texts whole, an image by its shape (and its bytes when unchanged). */
async function shapeOf(part: Message, files: Map<string, Buffer>): Promise<unknown> {
  if (part.type !== 'input_image') return part;
  const [, mime, payload] = /^data:([^;]+);base64,(.*)$/s.exec(part.image_url as string)!;
  const bytes = Buffer.from(payload!, 'base64');
  const meta = await sharp(bytes).metadata();
  const file = [...files.entries()].find(([, content]) => content.equals(bytes))?.[0] ?? 're-encoded';
  return { mime, width: meta.width, height: meta.height, format: meta.format, detail: part.detail, file };
}

async function run(side: Side, root: string, inputs: unknown[][], files: Map<string, Buffer>): Promise<unknown[]> {
  const home = join(root, side);
  mkdirSync(join(home, 'tmpdir'), { recursive: true });
  mkdirSync(join(root, `${side}-user`), { recursive: true });
  writeFileSync(join(home, 'config.toml'), mockModelConfig(reference.mock.url));
  const server = await TestServer.start({
    home, keepConfig: true, env: { TMPDIR: join(home, 'tmpdir'), HOME: join(root, `${side}-user`), RUST_BACKTRACE: '0' },
    ...(side === 'codex' ? { command: [reference.codex, 'app-server', '--listen', 'stdio://'] } : {}),
  });
  const seen: unknown[] = [];
  try {
    for (const input of inputs) {
      const { thread } = await server.request('thread/start', {});
      const before = reference.mock.requests.length;
      const { turn } = await server.request('turn/start', { threadId: thread.id, input }, 60_000);
      await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id, 60_000);
      const content = ((reference.mock.requests[before]!.body as { input: Message[] }).input.at(-1)!.content as Message[]);
      seen.push(await Promise.all(content.map((part) => shapeOf(part, files))));
    }
  } finally {
    await server.close();
  }
  return seen;
}

test('local and inline images: the same parts, sizes, types and unchanged bytes on both', async () => {
  const root = mkdtempSync(join(tmpdir(), 'thread-host-interop-images-'));
  try {
    const files = new Map<string, Buffer>([
      ['large.png', await gradient(3000, 3000).png().toBuffer()],
      ['wide.png', await gradient(4000, 1000).png().toBuffer()],
      ['budget.png', await gradient(2000, 1999).png().toBuffer()],
      ['photo.jpg', await gradient(4000, 3000).jpeg({ quality: 90 }).toBuffer()],
      ['large.webp', await gradient(3000, 2000).webp().toBuffer()],
      ['small.gif', await gradient(100, 100).gif().toBuffer()],
      ['fits.png', await gradient(1600, 1600).png().toBuffer()],
      ['small.jpg', await gradient(800, 600).jpeg().toBuffer()],
    ]);
    for (const [name, bytes] of files) writeFileSync(join(root, name), bytes);
    const local = (name: string, detail?: string) => ({ type: 'localImage', path: join(root, name), ...(detail === undefined ? {} : { detail }) });
    const inline = (name: string, detail?: string) => ({ type: 'image', url: `data:image/png;base64,${files.get(name)!.toString('base64')}`, ...(detail === undefined ? {} : { detail }) });
    const inputs = [
      ...[...files.keys()].map((name) => [local(name)]),
      [local('large.png', 'original')],
      [local('large.png', 'auto')],
      [inline('large.png')],
      [inline('photo.jpg', 'auto')],
      [inline('large.png', 'original')],
    ];
    const codex = await run('codex', root, inputs, files);
    const host = await run('thread-host', root, inputs, files);
    expect(host).toEqual(codex);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}, 300_000);
