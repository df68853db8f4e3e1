// Opt-in (`npm run test:interop`): the `reasoning` and `include` keys of the Responses request,
// from the reference, codex-cli 0.171.0, and from thread-host, on the same mock model: a turn
// with the defaults (no effort), then a turn that sets `effort`. Compared whole.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { referenceAndMock } from './reference-and-mock.js';
import { mockModelConfig, TestServer } from '../helpers/test-server.js';

const reference = referenceAndMock();

/** A side on a fresh home under `root`, pointed at the mock model, with a workspace `ws`. */
async function serve(side: 'codex' | 'thread-host', root: string): Promise<TestServer> {
  const home = join(root, 'home');
  mkdirSync(join(home, 'tmpdir'), { recursive: true });
  mkdirSync(join(root, 'ws'));
  mkdirSync(join(root, 'empty-home'));
  writeFileSync(join(home, 'config.toml'), mockModelConfig(reference.mock.url));
  const env = { TMPDIR: join(home, 'tmpdir'), HOME: join(root, 'empty-home'), RUST_BACKTRACE: '0' };
  const server = await TestServer.start({ home, keepConfig: true, env, ...(side === 'codex' ? { command: [reference.codex, 'app-server', '--listen', 'stdio://'] } : {}) });
  return server;
}

async function reasoningKeys(side: 'codex' | 'thread-host', root: string): Promise<unknown[]> {
  const server = await serve(side, root);
  const { thread } = await server.request('thread/start', { cwd: join(root, 'ws') });
  const first = reference.mock.requests.length;
  for (const params of [{}, { effort: 'high' }]) {
    const { turn } = await server.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'hi' }], ...params });
    await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id, 20_000);
  }
  expect(await server.close()).toBe(0);
  return reference.mock.requests.slice(first).map(({ body }) => {
    const { reasoning, include } = body as { reasoning?: unknown; include?: unknown };
    return { reasoning, include };
  });
}

test('a turn asks for the reasoning summary and its encrypted content, with the effort when one is set', async () => {
  const top = mkdtempSync(join(tmpdir(), 'thread-host-interop-reasoning-'));
  try {
    const codex = await reasoningKeys('codex', join(top, 'codex'));
    expect(codex).toEqual([
      { reasoning: { summary: 'auto' }, include: ['reasoning.encrypted_content'] },
      { reasoning: { effort: 'high', summary: 'auto' }, include: ['reasoning.encrypted_content'] },
    ]);
    expect(await reasoningKeys('thread-host', join(top, 'thread-host'))).toEqual(codex);
  } finally {
    rmSync(top, { recursive: true, force: true });
  }
});

/** thread/start's answer for a thread `config` effort, or the error it is refused with. */
async function started(server: TestServer, root: string, effort: string): Promise<unknown> {
  try {
    const answer = await server.request('thread/start', { cwd: join(root, 'ws'), config: { model_reasoning_effort: effort } });
    return { reasoningEffort: answer.reasoningEffort, threadId: typeof answer.thread.id };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

async function threadConfigEffort(side: 'codex' | 'thread-host', root: string): Promise<unknown> {
  const server = await serve(side, root);
  const answers = [await started(server, root, 'high'), await started(server, root, 'x'), await started(server, root, '')];
  const { thread } = await server.request('thread/start', { cwd: join(root, 'ws'), config: { model_reasoning_effort: 'high' } });
  const first = reference.mock.requests.length;
  const { turn } = await server.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'hi' }] });
  await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id, 20_000);
  expect(await server.close()).toBe(0);
  return { answers, reasoning: reference.mock.requests.slice(first).map(({ body }) => (body as { reasoning?: unknown }).reasoning) };
}

test("a thread's config effort is echoed as written, refused when empty, and sent to the model", async () => {
  const top = mkdtempSync(join(tmpdir(), 'thread-host-interop-reasoning-config-'));
  try {
    const codex = await threadConfigEffort('codex', join(top, 'codex'));
    expect(codex).toEqual({
      answers: [
        { reasoningEffort: 'high', threadId: 'string' },
        { reasoningEffort: 'x', threadId: 'string' },
        { error: expect.stringContaining('failed to load configuration: reasoning_effort must not be empty\nin `model_reasoning_effort`\n') },
      ],
      reasoning: [{ effort: 'high', summary: 'auto' }],
    });
    expect(await threadConfigEffort('thread-host', join(top, 'thread-host'))).toEqual(codex);
  } finally {
    rmSync(top, { recursive: true, force: true });
  }
});
